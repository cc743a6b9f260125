import { structuredSuite } from "./structured-suite.js";

structuredSuite("reversible");
