/**
 * @baracuda/cublaslt-sys: raw cuBLASLt bindings, one function per C function, same name and
 * parameter order (docs/ARCHITECTURE.md). libcublasLt.so.13 (or .12) is loaded at the first call,
 * never by `import`.
 */
import { type LibraryVersion, NativeLibrary, type NativeLibraryProbe } from '@baracuda/types';
import { loadAddon } from './addon.js';
import type { NativeBinding } from './native.js';

export * from './constants.js';
export type {
  AttributeValue,
  CublasLtHandle,
  CublasLtHeuristicResult,
  CublasLtMatmulDesc,
  CublasLtMatmulPreference,
  CublasLtMatrixLayout,
  HostScalar,
  NativeBinding,
  NativeProbe,
  StatusResult,
} from './native.js';

/** cuBLASLt's version, decoded from `cublasLtGetVersion()`: `major * 10000 + minor * 100 + patch`. */
export type CublasLtVersion = LibraryVersion;

/** What {@link probe} found. */
export type CublasLtProbe = NativeLibraryProbe;

const LIBRARY = 'libcublasLt.so.13 or libcublasLt.so.12 (cuBLASLt 12 or 13)';
const SOLUTIONS = [
  'Install the CUDA toolkit (it ships lib64/libcublasLt.so.13) or the distribution package libcublaslt13 / libcublaslt12',
  'Or install the Python wheel: pip install nvidia-cublas (CUDA 13, under site-packages/nvidia/cu13/lib) or nvidia-cublas-cu12 (under site-packages/nvidia/cublas/lib); PyTorch installs one',
  'Or set BARACUDA_CUBLASLT_LIBRARY=/path/to/libcublasLt.so.13 (or the directory holding it)',
];

/** cuBLASLt, loaded at the first call (probe, load and the raw functions share it). */
const library = new NativeLibrary<NativeBinding>({
  name: 'cuBLASLt',
  library: LIBRARY,
  solutions: SOLUTIONS,
  loadAddon,
});

/**
 * Loads cuBLASLt if that was not tried yet, and reports what happened. Never throws: a missing
 * addon or library is reported as `available: false` with every path tried.
 */
export function probe(): CublasLtProbe {
  return library.probe();
}

/**
 * Loads cuBLASLt (once) and returns the probe. Throws `LibraryNotFoundError` listing every path
 * tried and how to install cuBLASLt when it cannot be loaded.
 */
export function load(): CublasLtProbe {
  return library.load();
}

/** The addon's constant table (`native/cublaslt_decls.h`). Needs the addon, not cuBLASLt. */
export function nativeConstants(): Record<string, number> {
  return loadAddon().nativeConstants();
}

/** The addon's exports that are cuBLASLt calls. */
type RawName = Extract<keyof NativeBinding, `cublasLt${string}`>;

/**
 * The raw function `name`: loads the library on its first call, and refuses a function the loaded
 * library does not export (see NativeLibrary in @baracuda/types).
 */
function raw<K extends RawName>(name: K): NativeBinding[K] {
  return library.raw(name);
}

const DOCS = 'https://docs.nvidia.com/cuda/cublas/';

/** [cublasLtGetVersion](https://docs.nvidia.com/cuda/cublas/#cublasltgetversion). */
export const cublasLtGetVersion = raw('cublasLtGetVersion');
/** [cublasLtGetStatusString](https://docs.nvidia.com/cuda/cublas/#cublasltgetstatusstring). */
export const cublasLtGetStatusString = raw('cublasLtGetStatusString');
/** [cublasLtCreate](https://docs.nvidia.com/cuda/cublas/#cublasltcreate): `lightHandle` on success. */
export const cublasLtCreate = raw('cublasLtCreate');
/** [cublasLtDestroy](https://docs.nvidia.com/cuda/cublas/#cublasltdestroy). Marks the object destroyed whatever the status. */
export const cublasLtDestroy = raw('cublasLtDestroy');
/** [cublasLtMatmulDescCreate](https://docs.nvidia.com/cuda/cublas/#cublasltmatmuldesccreate). */
export const cublasLtMatmulDescCreate = raw('cublasLtMatmulDescCreate');
/** [cublasLtMatmulDescSetAttribute](https://docs.nvidia.com/cuda/cublas/#cublasltmatmuldescsetattribute): `buf`'s bytes are the value (sizeInBytes is its byteLength). */
export const cublasLtMatmulDescSetAttribute = raw('cublasLtMatmulDescSetAttribute');
/** [cublasLtMatmulDescDestroy](https://docs.nvidia.com/cuda/cublas/#cublasltmatmuldescdestroy). */
export const cublasLtMatmulDescDestroy = raw('cublasLtMatmulDescDestroy');
/** [cublasLtMatrixLayoutCreate](https://docs.nvidia.com/cuda/cublas/#cublasltmatrixlayoutcreate). */
export const cublasLtMatrixLayoutCreate = raw('cublasLtMatrixLayoutCreate');
/** [cublasLtMatrixLayoutSetAttribute](https://docs.nvidia.com/cuda/cublas/#cublasltmatrixlayoutsetattribute). */
export const cublasLtMatrixLayoutSetAttribute = raw('cublasLtMatrixLayoutSetAttribute');
/** [cublasLtMatrixLayoutDestroy](https://docs.nvidia.com/cuda/cublas/#cublasltmatrixlayoutdestroy). */
export const cublasLtMatrixLayoutDestroy = raw('cublasLtMatrixLayoutDestroy');
/** [cublasLtMatmulPreferenceCreate](https://docs.nvidia.com/cuda/cublas/#cublasltmatmulpreferencecreate). */
export const cublasLtMatmulPreferenceCreate = raw('cublasLtMatmulPreferenceCreate');
/** [cublasLtMatmulPreferenceSetAttribute](https://docs.nvidia.com/cuda/cublas/#cublasltmatmulpreferencesetattribute). */
export const cublasLtMatmulPreferenceSetAttribute = raw('cublasLtMatmulPreferenceSetAttribute');
/** [cublasLtMatmulPreferenceDestroy](https://docs.nvidia.com/cuda/cublas/#cublasltmatmulpreferencedestroy). */
export const cublasLtMatmulPreferenceDestroy = raw('cublasLtMatmulPreferenceDestroy');
/** [cublasLtMatmulAlgoGetHeuristic](https://docs.nvidia.com/cuda/cublas/#cublasltmatmulalgogetheuristic): up to `requestedAlgoCount` (1..1024) results, best first. */
export const cublasLtMatmulAlgoGetHeuristic = raw('cublasLtMatmulAlgoGetHeuristic');
/**
 * [cublasLtMatmul](https://docs.nvidia.com/cuda/cublas/#cublasltmatmul): D = alpha·op(A)·op(B) + beta·C
 * on `stream` (a driver Stream's handle). alpha and beta are host scalars of the scale type; `algo`
 * null lets cuBLASLt choose.
 */
export const cublasLtMatmul = raw('cublasLtMatmul');

/** Where the C API is documented. */
export const CUBLAS_DOCS = DOCS;
