/** The three packages' corpora, in report order. */
import type { PackageCorpus } from '../model.js';
import { CUDNN_SYS_CORPUS } from './cudnn-sys.js';
import { DRIVER_CORPUS } from './driver.js';
import { KERNELS_CORPUS } from './kernels.js';

export const CORPORA: readonly PackageCorpus[] = [DRIVER_CORPUS, CUDNN_SYS_CORPUS, KERNELS_CORPUS];
