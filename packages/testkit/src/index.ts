export * from "./Http.js"
export * from "./TestServer.js"
