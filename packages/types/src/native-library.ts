/**
 * How a raw-binding package (`@baracuda/nccl-sys`, `@baracuda/cublaslt-sys`) opens its library:
 * `probe()` never throws and says what was searched, `load()` throws `LibraryNotFoundError` with
 * the package's advice, and each raw function loads the library at its first call and refuses,
 * before reading an argument, a function the loaded library does not export. Pure: the addon is
 * the package's (`loadAddon`), so nothing here touches Node or a file.
 */
import { LibraryNotFoundError, type LibrarySearchAttempt, UnsupportedError } from './errors.js';

/** A library's version decoded from `major * 10000 + minor * 100 + patch`. */
export interface LibraryVersion {
  major: number;
  minor: number;
  patch: number;
  /** The number the library reported. */
  raw: number;
}

/** What an addon's own `probe()` reports (its native side). */
export interface NativeLibraryFound {
  available: boolean;
  version: number;
  libraryPath: string;
  tried: LibrarySearchAttempt[];
  missingSymbols: string[];
  reason: string;
}

/** What a package's `probe()` reports. */
export interface NativeLibraryProbe {
  available: boolean;
  version: LibraryVersion | null;
  /** The library file loaded, or null. */
  libraryPath: string | null;
  /** Every path tried, in order, with its error ("" for the one that loaded). */
  tried: LibrarySearchAttempt[];
  /** Functions the addon binds that the loaded library does not export. */
  missingSymbols: string[];
  /** Why the library is unavailable, or null. */
  reason: string | null;
}

export interface NativeLibrarySpec<B extends { probe(): NativeLibraryFound }> {
  /** The library's name in messages, e.g. `NCCL`. */
  readonly name: string;
  /** `LibraryNotFoundError`'s library, e.g. `libnccl.so.2 (NCCL 2.10 or newer)`. */
  readonly library: string;
  /** `LibraryNotFoundError`'s "Possible solutions". */
  readonly solutions: readonly string[];
  /** The package's addon, loaded (it throws `LibraryNotFoundError` when it cannot be). */
  readonly loadAddon: () => B;
  /** The C function behind an export whose name differs (e.g. an async variant); default itself. */
  readonly cName?: (exportName: string) => string;
}

/** `raw` as `major * 10000 + minor * 100 + patch`. */
export function decodeLibraryVersion(raw: number): LibraryVersion {
  return {
    major: Math.floor(raw / 10000),
    minor: Math.floor((raw % 10000) / 100),
    patch: raw % 100,
    raw,
  };
}

/** A package's probe, load and raw functions over its addon (see the module's comment). */
export class NativeLibrary<B extends { probe(): NativeLibraryFound }> {
  readonly #spec: NativeLibrarySpec<B>;
  #loaded: B | undefined;
  #missing: { names: ReadonlySet<string>; library: string } | undefined;

  constructor(spec: NativeLibrarySpec<B>) {
    this.#spec = spec;
  }

  /**
   * Loads the library if that was not tried yet, and reports what happened. Never throws: a
   * missing addon or library is reported as `available: false` with every path tried.
   */
  probe(): NativeLibraryProbe {
    let native: B;
    try {
      native = this.#spec.loadAddon();
    } catch (error) {
      return {
        available: false,
        version: null,
        libraryPath: null,
        tried: LibraryNotFoundError.isInstance(error) ? [...error.searched] : [],
        missingSymbols: [],
        reason: error instanceof Error ? error.message : String(error),
      };
    }
    const found = native.probe();
    return {
      available: found.available,
      version: found.available ? decodeLibraryVersion(found.version) : null,
      libraryPath: found.available ? found.libraryPath : null,
      tried: found.tried,
      missingSymbols: found.missingSymbols,
      reason: found.available ? null : found.reason,
    };
  }

  /** Loads the library (once) and returns the probe; `LibraryNotFoundError` when it cannot. */
  load(): NativeLibraryProbe {
    const found = this.probe();
    if (!found.available) {
      throw new LibraryNotFoundError(this.#spec.library, found.tried, [...this.#spec.solutions], {
        cause: new Error(found.reason ?? `${this.#spec.name} is unavailable`),
      });
    }
    return found;
  }

  #binding(): B {
    if (this.#loaded) return this.#loaded;
    const found = this.load();
    const v = found.version;
    this.#missing = {
      names: new Set(found.missingSymbols),
      library: `${found.libraryPath} (${this.#spec.name} ${v ? `${v.major}.${v.minor}.${v.patch}` : 'unknown'})`,
    };
    this.#loaded = this.#spec.loadAddon();
    return this.#loaded;
  }

  /**
   * The raw function `name`: loads the library on its first call (throwing `LibraryNotFoundError`
   * when it cannot, and trying again on the next call); a function the loaded library does not
   * export is an `UnsupportedError` naming it, before any argument is read.
   */
  raw<K extends keyof B & string>(name: K): B[K] {
    let native: ((...args: unknown[]) => unknown) | undefined;
    const forward = (...args: unknown[]): unknown => {
      if (native === undefined) {
        const binding = this.#binding();
        const cName = this.#spec.cName?.(name) ?? name;
        if (this.#missing?.names.has(cName)) {
          throw new UnsupportedError(
            `${cName} is not exported by ${this.#missing.library}: this ${this.#spec.name} cannot run it (probe().missingSymbols lists every such function)`,
          );
        }
        native = binding[name] as (...args: unknown[]) => unknown;
      }
      return native(...args);
    };
    Object.defineProperty(forward, 'name', { value: name });
    return forward as B[K];
  }
}
