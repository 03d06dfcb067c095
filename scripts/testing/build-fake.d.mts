/** Types of build-fake.mjs: the one place test-only C (the fakes) is compiled. */
export declare const REPO_ROOT: string;
export declare const FAKE_SOURCES: Readonly<{
  libcuda: string;
  cudnn: string;
  nccl: string;
  cublaslt: string;
}>;
export declare function buildSharedLibrary(options: {
  source: string;
  fileName: string;
  defines?: readonly string[];
  includeDirs?: readonly string[];
}): string;
export declare function buildFakeLibcudaLibrary(options?: {
  minimal?: boolean;
  noModules?: boolean;
  noLaunch?: boolean;
}): string;
export declare function buildFakeCudnnLibrary(options?: { noBackward?: boolean }): string;
export declare function buildFakeNcclLibrary(options?: { noP2p?: boolean }): string;
export declare function buildFakeCublasLtLibrary(options?: { partial?: boolean }): string;
export declare function fakeLiveCounts(libraryPath: string): Record<string, number> | null;
