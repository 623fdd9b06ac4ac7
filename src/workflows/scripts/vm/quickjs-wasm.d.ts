// The bundle's `.wasm` rule (src/worker/plugin.ts) and the tests' (vitest.config.ts) make this import the base64 text.
declare module '@jitl/quickjs-wasmfile-release-sync/wasm' {
  const wasmBase64: string;
  export default wasmBase64;
}
