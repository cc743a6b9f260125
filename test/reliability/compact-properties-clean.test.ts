import { propertySuite } from "./property-suite.js";

propertySuite("clean");
