/**
 * The three passes of a convolution and everything that differs between them, in one table: the
 * operand each writes, the operand order of our depthwise kernels, the
 * graph operation and its attribute names, the pinned algorithm and the legacy call names. cuDNN
 * constants are named here (keys of sys.ts's `C`), not looked up: this module has no I/O.
 */
import type { ConstantName } from '../sys.js';

/** The three passes of a convolution. */
export type Conv3dPass = 'fw' | 'bwData' | 'bwFilter';
export const PASSES: readonly Conv3dPass[] = ['fw', 'bwData', 'bwFilter'];

/** An operand in cuDNN's uid order: x-like (x, dx), w-like (w, dw), y-like (y, dy). */
export type Role = 'x' | 'w' | 'y';
export const ROLES: readonly Role[] = ['x', 'w', 'y'];

/** A pass's three operands as device pointers, by role. */
export type Operands = Readonly<Record<Role, bigint>>;

export interface PassSpec {
  /** In messages: `forward`, `backward-data`, `backward-filter`. */
  readonly name: string;
  /** The operand the pass writes. */
  readonly output: Role;
  /** Our depthwise kernels' (input, w, out) operands. */
  readonly depthwise: readonly [Role, Role, Role];
  /** The graph API's operation: its descriptor type, what to call it, and its attributes. */
  readonly graph: {
    readonly op: ConstantName;
    readonly what: string;
    /** The tensor attribute of each role. */
    readonly tensors: Readonly<Record<Role, ConstantName>>;
    readonly conv: ConstantName;
    readonly alpha: ConstantName;
    readonly beta: ConstantName;
  };
  /** The legacy API's calls (cudnn/legacy.ts calls them, each with its own operand order). */
  readonly legacy: {
    readonly run:
      | 'cudnnConvolutionForward'
      | 'cudnnConvolutionBackwardData'
      | 'cudnnConvolutionBackwardFilter';
    readonly workspace:
      | 'cudnnGetConvolutionForwardWorkspaceSize'
      | 'cudnnGetConvolutionBackwardDataWorkspaceSize'
      | 'cudnnGetConvolutionBackwardFilterWorkspaceSize';
    readonly algorithms:
      | 'cudnnGetConvolutionForwardAlgorithm_v7'
      | 'cudnnGetConvolutionBackwardDataAlgorithm_v7'
      | 'cudnnGetConvolutionBackwardFilterAlgorithm_v7';
    /** The algorithm enum's infix: `CUDNN_CONVOLUTION_<prefix>_ALGO`. */
    readonly prefix: string;
    /** The seed's pinned algorithm. */
    readonly pinned: ConstantName;
  };
}

export const PASS_SPEC: Readonly<Record<Conv3dPass, PassSpec>> = {
  fw: {
    name: 'forward',
    output: 'y',
    depthwise: ['x', 'w', 'y'],
    graph: {
      op: 'CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR',
      what: 'forward op',
      tensors: {
        x: 'CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X',
        w: 'CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W',
        y: 'CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y',
      },
      conv: 'CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC',
      alpha: 'CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA',
      beta: 'CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA',
    },
    legacy: {
      run: 'cudnnConvolutionForward',
      workspace: 'cudnnGetConvolutionForwardWorkspaceSize',
      algorithms: 'cudnnGetConvolutionForwardAlgorithm_v7',
      prefix: 'FWD',
      pinned: 'CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM',
    },
  },
  bwData: {
    name: 'backward-data',
    output: 'x',
    depthwise: ['y', 'w', 'x'],
    graph: {
      op: 'CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR',
      what: 'backward-data op',
      tensors: {
        x: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX',
        w: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W',
        y: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY',
      },
      conv: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC',
      alpha: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA',
      beta: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA',
    },
    legacy: {
      run: 'cudnnConvolutionBackwardData',
      workspace: 'cudnnGetConvolutionBackwardDataWorkspaceSize',
      algorithms: 'cudnnGetConvolutionBackwardDataAlgorithm_v7',
      prefix: 'BWD_DATA',
      pinned: 'CUDNN_CONVOLUTION_BWD_DATA_ALGO_1',
    },
  },
  bwFilter: {
    name: 'backward-filter',
    output: 'w',
    depthwise: ['x', 'y', 'w'],
    graph: {
      op: 'CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR',
      what: 'backward-filter op',
      tensors: {
        x: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X',
        w: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW',
        y: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY',
      },
      conv: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC',
      alpha: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA',
      beta: 'CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA',
    },
    legacy: {
      run: 'cudnnConvolutionBackwardFilter',
      workspace: 'cudnnGetConvolutionBackwardFilterWorkspaceSize',
      algorithms: 'cudnnGetConvolutionBackwardFilterAlgorithm_v7',
      prefix: 'BWD_FILTER',
      pinned: 'CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1',
    },
  },
};
