import { fidelitySuite } from "./fidelity-suite.js";

fidelitySuite("clean");
