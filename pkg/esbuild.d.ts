/** The esbuild plugin that copies the package's .wasm into the build (see esbuild.js). */
export declare function hippoWasm(): {
  name: string;
  setup(build: unknown): void;
};
