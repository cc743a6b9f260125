import { propertySuite } from "./property-suite.js";

propertySuite("reversible");
