/**
 * The shared benchmark suite (`suites/conv3d-suite.json`, a verbatim copy of
 * `shared/bench/conv3d-suite.json`). Imported as JSON so the bundled CLI carries it inline and
 * needs no file beside it; there is one copy of the data.
 */
import source from '../../suites/conv3d-suite.json' with { type: 'json' };

export const SHARED_SUITE_SOURCE: {
  readonly about: string;
  readonly cases: readonly Record<string, unknown>[];
} = source;
