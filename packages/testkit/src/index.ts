export * as Arbitraries from "./Arbitraries.js"
export * from "./Assertions.js"
export * from "./Http.js"
export * from "./TestServer.js"
