// Test-side access to the fake Responses-API model (its code lives in tools/fake-model).
export * from "../../tools/fake-model/index.js";
