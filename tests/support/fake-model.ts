// Test-side access to the fake Responses-API model (product code lives in src/fake-model).
export * from "../../src/fake-model/index.js";
