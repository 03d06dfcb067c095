/** The packages' corpora, in report order. */
import type { PackageCorpus } from '../model.js';
import { COLLECTIVES_CORPUS } from './collectives.js';
import { CUBLASLT_SYS_CORPUS } from './cublaslt-sys.js';
import { CUDNN_SYS_CORPUS } from './cudnn-sys.js';
import { DRIVER_CORPUS } from './driver.js';
import { KERNELS_CORPUS } from './kernels.js';
import { NCCL_SYS_CORPUS } from './nccl-sys.js';

export const CORPORA: readonly PackageCorpus[] = [
  DRIVER_CORPUS,
  CUDNN_SYS_CORPUS,
  KERNELS_CORPUS,
  NCCL_SYS_CORPUS,
  COLLECTIVES_CORPUS,
  CUBLASLT_SYS_CORPUS,
];
