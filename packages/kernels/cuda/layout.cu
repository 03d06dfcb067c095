// Layout transposes for the NDHWC detour of Conv3dPlan (see src/layout.ts).
//
// One kernel per element size: a batched 2-D transpose
//     in  [batch][rows][cols]  ->  out [batch][cols][rows]
// which is NCDHW -> NDHWC with (batch, rows, cols) = (N, C, D*H*W) and NDHWC -> NCDHW with
// (N, D*H*W, C); filters KCTRS <-> KTRSC likewise with (K, C/groups, T*R*S).
// The bytes are moved, never converted, so one kernel serves f16 and bf16 (b16), f32 (b32) and
// f64 (b64).
//
// Each block moves one 32x32 tile through shared memory (padded by one column so the transposed
// read has no bank conflicts): reads are coalesced along `cols`, writes along `rows`.
// The grid is (tiles of one matrix, min(batch, 65535)); blocks loop over the batch by gridDim.y.
// Indices are 64-bit: a matrix may exceed 2^32 elements.
//
// Also the filter of a stride-1 layer's backward-data run as a forward pass: transposed per group
// and flipped in space (baracuda_flip_filter_b*, below).
//
// Regenerate src/layout-ptx.ts with `node scripts/gen-ptx.mjs` (needs nvcc); a test checks it is
// current whenever nvcc is present.

namespace baracuda_layout {

constexpr unsigned kTile = 32;
constexpr unsigned kRowsPerPass = 8;  // blockDim = (32, 8): each thread moves 4 elements each way

template <typename T>
__device__ __forceinline__ void transpose(const T* __restrict__ in, T* __restrict__ out,
                                          unsigned long long rows, unsigned long long cols,
                                          unsigned long long tilesCols,
                                          unsigned long long batch) {
  __shared__ T tile[kTile][kTile + 1];
  const unsigned long long tileRow = blockIdx.x / tilesCols;
  const unsigned long long tileCol = blockIdx.x - tileRow * tilesCols;
  const unsigned long long r0 = tileRow * kTile;
  const unsigned long long c0 = tileCol * kTile;
  const unsigned long long matrix = rows * cols;
  for (unsigned long long b = blockIdx.y; b < batch; b += gridDim.y) {
    const T* src = in + b * matrix;
    T* dst = out + b * matrix;
    // Read: threadIdx.x walks the contiguous `cols` axis.
    const unsigned long long c = c0 + threadIdx.x;
    for (unsigned i = threadIdx.y; i < kTile; i += kRowsPerPass) {
      const unsigned long long r = r0 + i;
      if (r < rows && c < cols) tile[i][threadIdx.x] = src[r * cols + c];
    }
    __syncthreads();
    // Write: threadIdx.x walks the contiguous `rows` axis of the output.
    const unsigned long long r = r0 + threadIdx.x;
    for (unsigned i = threadIdx.y; i < kTile; i += kRowsPerPass) {
      const unsigned long long cc = c0 + i;
      if (r < rows && cc < cols) dst[cc * rows + r] = tile[threadIdx.x][i];
    }
    __syncthreads();
  }
}

// 2-byte elements moved in pairs: a 64x64 tile, each thread reading and writing 32-bit words
// (two adjacent columns of one row in, two adjacent rows of one column out), which halves the
// memory transactions of the plain b16 kernel. Needs even rows and cols and 4-byte aligned
// pointers; the shared tile's odd pitch keeps both phases free of bank conflicts.
__device__ __forceinline__ void transposePairs(const unsigned short* __restrict__ in,
                                               unsigned short* __restrict__ out,
                                               unsigned long long rows, unsigned long long cols,
                                               unsigned long long tilesCols,
                                               unsigned long long batch) {
  constexpr unsigned kWide = 2 * kTile;
  __shared__ unsigned short tile[kWide][kWide + 1];
  const unsigned long long tileRow = blockIdx.x / tilesCols;
  const unsigned long long tileCol = blockIdx.x - tileRow * tilesCols;
  const unsigned long long r0 = tileRow * kWide;
  const unsigned long long c0 = tileCol * kWide;
  const unsigned long long matrix = rows * cols;
  const unsigned pair = 2 * threadIdx.x;
  for (unsigned long long b = blockIdx.y; b < batch; b += gridDim.y) {
    const unsigned short* src = in + b * matrix;
    unsigned short* dst = out + b * matrix;
    const unsigned long long c = c0 + pair;
    for (unsigned i = threadIdx.y; i < kWide; i += kRowsPerPass) {
      const unsigned long long r = r0 + i;
      if (r < rows && c < cols) {
        const unsigned v = *reinterpret_cast<const unsigned*>(src + r * cols + c);
        tile[i][pair] = static_cast<unsigned short>(v & 0xffffu);
        tile[i][pair + 1] = static_cast<unsigned short>(v >> 16);
      }
    }
    __syncthreads();
    const unsigned long long r = r0 + pair;
    for (unsigned i = threadIdx.y; i < kWide; i += kRowsPerPass) {
      const unsigned long long cc = c0 + i;
      if (r < rows && cc < cols) {
        const unsigned v = static_cast<unsigned>(tile[pair][i]) |
                           (static_cast<unsigned>(tile[pair + 1][i]) << 16);
        *reinterpret_cast<unsigned*>(dst + cc * rows + r) = v;
      }
    }
    __syncthreads();
  }
}

// 16-byte vectors on both sides: each thread reads a VE x VE block of elements (VE = 16 / element
// bytes: 8 rows of 8 halves, 4 of 4 words, 2 of 2 doubles) as VE coalesced 16-byte loads, transposes
// it in registers, and leaves its VE output vectors in shared memory, from which the block writes
// whole runs of each output row with 16-byte stores. Needs rows and cols that are multiples of VE
// and 16-byte aligned pointers (the plain kernels serve the rest).
//
// The block is (CG, RG) threads: CG vectors across the input's rows (CG * 16 bytes contiguous a
// row), RG vector groups down them (RG * 16 bytes contiguous an output row); the host picks CG and
// RG (powers of two, CG * RG <= 256) to fit the matrix. Shared memory: CG * VE output rows of RG
// vectors (CG * RG * VE * 16 bytes, 32 KiB for 256 threads of 2-byte elements), the vector slot
// XOR-swizzled by the output row's thread so that both the stores into it and the loads out of it
// are free of bank conflicts (with RG >= 8; 2-way with fewer).
template <unsigned VE>
struct VecBlock;

__device__ __forceinline__ unsigned word(const uint4& v, unsigned k) {
  return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

template <>
struct VecBlock<8> {  // 2-byte elements: out row j, word m = halves (2m, 2m+1) of column j
  static __device__ __forceinline__ void transpose(const uint4 (&a)[8], uint4 (&b)[8]) {
#pragma unroll
    for (unsigned j = 0; j < 8; j++) {
      const unsigned sel = (j & 1) ? 0x7632 : 0x5410;
      const unsigned k = j / 2;
      b[j] = make_uint4(__byte_perm(word(a[0], k), word(a[1], k), sel),
                        __byte_perm(word(a[2], k), word(a[3], k), sel),
                        __byte_perm(word(a[4], k), word(a[5], k), sel),
                        __byte_perm(word(a[6], k), word(a[7], k), sel));
    }
  }
};

template <>
struct VecBlock<4> {  // 4-byte elements: out row j, word m = row m's word j
  static __device__ __forceinline__ void transpose(const uint4 (&a)[4], uint4 (&b)[4]) {
#pragma unroll
    for (unsigned j = 0; j < 4; j++) {
      b[j] = make_uint4(word(a[0], j), word(a[1], j), word(a[2], j), word(a[3], j));
    }
  }
};

template <>
struct VecBlock<2> {  // 8-byte elements: out row j = (row 0's element j, row 1's element j)
  static __device__ __forceinline__ void transpose(const uint4 (&a)[2], uint4 (&b)[2]) {
    b[0] = make_uint4(a[0].x, a[0].y, a[1].x, a[1].y);
    b[1] = make_uint4(a[0].z, a[0].w, a[1].z, a[1].w);
  }
};

template <unsigned VE>
__device__ __forceinline__ void transposeVec(const uint4* __restrict__ in, uint4* __restrict__ out,
                                             unsigned long long rows, unsigned long long cols,
                                             unsigned long long tilesCols,
                                             unsigned long long batch) {
  extern __shared__ uint4 slots[];
  const unsigned cg = blockDim.x;
  const unsigned rg = blockDim.y;
  const unsigned long long rowVecs = rows / VE;  // vectors in an output row
  const unsigned long long colVecs = cols / VE;  // vectors in an input row
  const unsigned long long tileRow = blockIdx.x / tilesCols;
  const unsigned long long tileCol = blockIdx.x - tileRow * tilesCols;
  const unsigned long long vr0 = tileRow * rg;
  const unsigned long long vc0 = tileCol * cg;
  const unsigned long long matrixVecs = rowVecs * cols;
  // Reading: thread (x, y) takes input rows (vr0 + y) * VE + j, vector vc0 + x.
  const unsigned long long vr = vr0 + threadIdx.y;
  const unsigned long long vc = vc0 + threadIdx.x;
  const bool reads = vr < rowVecs && vc < colVecs;
  // Writing: the block's threads in turn along each output row's rg vectors.
  const unsigned linear = threadIdx.y * cg + threadIdx.x;
  const unsigned threads = cg * rg;
  const unsigned wv = linear % rg;  // vector within the tile's part of an output row
  const unsigned rowsOut = cg * VE;  // output rows of a tile
  for (unsigned long long b = blockIdx.y; b < batch; b += gridDim.y) {
    const uint4* src = in + b * matrixVecs;
    uint4* dst = out + b * matrixVecs;
    if (reads) {
      uint4 a[VE];
      uint4 t[VE];
#pragma unroll
      for (unsigned j = 0; j < VE; j++) a[j] = __ldg(src + (vr * VE + j) * colVecs + vc);
      VecBlock<VE>::transpose(a, t);
#pragma unroll
      for (unsigned i = 0; i < VE; i++) {
        const unsigned row = threadIdx.x * VE + i;
        slots[row * rg + (threadIdx.y ^ (threadIdx.x & (rg - 1)))] = t[i];
      }
    }
    __syncthreads();
    for (unsigned row = linear / rg; row < rowsOut; row += threads / rg) {
      const unsigned long long c = vc0 * VE + row;  // output row (input column)
      const unsigned long long v = vr0 + wv;
      if (c < cols && v < rowVecs) {
        dst[c * rowVecs + v] = slots[row * rg + (wv ^ ((row / VE) & (rg - 1)))];
      }
    }
    __syncthreads();
  }
}

// A matrix with a short side (at most 16 rows or columns, such as the 3 channels of an RGB input):
// tiles of 32 or 64 would be mostly empty. One thread per element of the long side instead,
// looping over the short one: with narrow columns each thread reads its row's `cols` contiguous
// elements and writes one element to each of `cols` output rows (consecutive threads, consecutive
// elements); with narrow rows the other way round. Grid-stride over batch * long side.
template <typename T>
__device__ __forceinline__ void transposeNarrow(const T* __restrict__ in, T* __restrict__ out,
                                                unsigned long long rows, unsigned long long cols,
                                                unsigned long long batch,
                                                unsigned long long narrowCols) {
  const unsigned long long matrix = rows * cols;
  const unsigned long long longSide = narrowCols ? rows : cols;
  const unsigned long long shortSide = narrowCols ? cols : rows;
  const unsigned long long total = batch * longSide;
  const unsigned long long step = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long t = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       t < total; t += step) {
    const unsigned long long b = t / longSide;
    const unsigned long long l = t - b * longSide;
    const T* src = in + b * matrix;
    T* dst = out + b * matrix;
    if (narrowCols) {
      // in [l][k] -> out [k][l]
      for (unsigned long long k = 0; k < shortSide; k++) dst[k * rows + l] = src[l * cols + k];
    } else {
      // in [k][l] -> out [l][k]
      for (unsigned long long k = 0; k < shortSide; k++) dst[l * rows + k] = src[k * cols + l];
    }
  }
}

// out = the filter W of a layer of `groups` groups (kg output and cg input channels a group,
// `spatial` = T*R*S taps), transposed per group and flipped in space:
//   NCDHW: W [g*kg + k][c][s]  ->  out [g*cg + c][k][spatial - 1 - s]
//   NDHWC: W [g*kg + k][s][c]  ->  out [g*cg + c][spatial - 1 - s][k]
// Reversing the flattened tap index reverses each of T, R and S. One thread an output element,
// grid-stride; filters are small, so the reads need not be coalesced.
template <typename T>
__device__ __forceinline__ void flipFilter(const T* __restrict__ in, T* __restrict__ out,
                                           unsigned long long kg, unsigned long long cg,
                                           unsigned long long spatial, unsigned long long total,
                                           unsigned long long ndhwc) {
  const unsigned long long step = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long o = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       o < total; o += step) {
    unsigned long long k, s, oc;
    if (ndhwc) {
      k = o % kg;
      const unsigned long long t = o / kg;
      s = t % spatial;
      oc = t / spatial;
    } else {
      s = o % spatial;
      const unsigned long long t = o / spatial;
      k = t % kg;
      oc = t / kg;
    }
    const unsigned long long g = oc / cg;
    const unsigned long long c = oc - g * cg;
    const unsigned long long flipped = spatial - 1 - s;
    const unsigned long long row = g * kg + k;
    out[o] = ndhwc ? in[(row * spatial + flipped) * cg + c] : in[(row * cg + c) * spatial + flipped];
  }
}

}  // namespace baracuda_layout

// Parameters, in this order and packed as in memory: in (pointer), out (pointer), rows (u64),
// cols (u64), tilesCols (u64, = ceil(cols / 32)), batch (u64): 48 bytes, no padding.
// Grid: (ceil(rows / 32) * tilesCols, min(batch, 65535), 1); block: (32, 8, 1); no dynamic
// shared memory.
extern "C" __global__ void __launch_bounds__(baracuda_layout::kTile * baracuda_layout::kRowsPerPass)
    baracuda_transpose_b16(const unsigned short* in, unsigned short* out, unsigned long long rows,
                           unsigned long long cols, unsigned long long tilesCols,
                           unsigned long long batch) {
  baracuda_layout::transpose(in, out, rows, cols, tilesCols, batch);
}

extern "C" __global__ void __launch_bounds__(baracuda_layout::kTile * baracuda_layout::kRowsPerPass)
    baracuda_transpose_b32(const unsigned int* in, unsigned int* out, unsigned long long rows,
                           unsigned long long cols, unsigned long long tilesCols,
                           unsigned long long batch) {
  baracuda_layout::transpose(in, out, rows, cols, tilesCols, batch);
}

extern "C" __global__ void __launch_bounds__(baracuda_layout::kTile * baracuda_layout::kRowsPerPass)
    baracuda_transpose_b64(const unsigned long long* in, unsigned long long* out,
                           unsigned long long rows, unsigned long long cols,
                           unsigned long long tilesCols, unsigned long long batch) {
  baracuda_layout::transpose(in, out, rows, cols, tilesCols, batch);
}

// As baracuda_transpose_b16, for even rows and cols and 4-byte aligned pointers, with 64x64
// tiles: grid (ceil(rows / 64) * tilesCols, min(batch, 65535), 1), tilesCols = ceil(cols / 64).
extern "C" __global__ void __launch_bounds__(baracuda_layout::kTile * baracuda_layout::kRowsPerPass)
    baracuda_transpose_b16x2(const unsigned short* in, unsigned short* out,
                             unsigned long long rows, unsigned long long cols,
                             unsigned long long tilesCols, unsigned long long batch) {
  baracuda_layout::transposePairs(in, out, rows, cols, tilesCols, batch);
}

// As baracuda_transpose_b*, on 16-byte vectors (transposeVec), for rows and cols that are
// multiples of 16 / element bytes and 16-byte aligned pointers. Same parameters, with tilesCols =
// ceil(cols / VE / CG); grid (ceil(rows / VE / RG) * tilesCols, min(batch, 65535), 1); block
// (CG, RG, 1), powers of two with CG * RG <= 256; dynamic shared memory CG * RG * VE * 16 bytes.
// (At least 3 blocks an SM: up to 85 registers, which the 8 x 8 block of halves needs without
// spilling; ptxas's own choice was 64 and a spill.)
extern "C" __global__ void __launch_bounds__(256, 3)
    baracuda_transpose_v16_b16(const uint4* in, uint4* out, unsigned long long rows,
                               unsigned long long cols, unsigned long long tilesCols,
                               unsigned long long batch) {
  baracuda_layout::transposeVec<8>(in, out, rows, cols, tilesCols, batch);
}

extern "C" __global__ void __launch_bounds__(256)
    baracuda_transpose_v16_b32(const uint4* in, uint4* out, unsigned long long rows,
                               unsigned long long cols, unsigned long long tilesCols,
                               unsigned long long batch) {
  baracuda_layout::transposeVec<4>(in, out, rows, cols, tilesCols, batch);
}

extern "C" __global__ void __launch_bounds__(256)
    baracuda_transpose_v16_b64(const uint4* in, uint4* out, unsigned long long rows,
                               unsigned long long cols, unsigned long long tilesCols,
                               unsigned long long batch) {
  baracuda_layout::transposeVec<2>(in, out, rows, cols, tilesCols, batch);
}

// As baracuda_transpose_b*, for a matrix with at most 16 rows or columns (transposeNarrow).
// Parameters, packed: in (pointer), out (pointer), rows, cols, batch, narrowCols (1: cols is the
// short side; 0: rows is), all u64: 48 bytes. Grid: (min(ceil(batch * long side / 256), 2^20),
// 1, 1); block: (256, 1, 1).
extern "C" __global__ void __launch_bounds__(256)
    baracuda_transpose_narrow_b16(const unsigned short* in, unsigned short* out,
                                  unsigned long long rows, unsigned long long cols,
                                  unsigned long long batch, unsigned long long narrowCols) {
  baracuda_layout::transposeNarrow(in, out, rows, cols, batch, narrowCols);
}

extern "C" __global__ void __launch_bounds__(256)
    baracuda_transpose_narrow_b32(const unsigned int* in, unsigned int* out,
                                  unsigned long long rows, unsigned long long cols,
                                  unsigned long long batch, unsigned long long narrowCols) {
  baracuda_layout::transposeNarrow(in, out, rows, cols, batch, narrowCols);
}

extern "C" __global__ void __launch_bounds__(256)
    baracuda_transpose_narrow_b64(const unsigned long long* in, unsigned long long* out,
                                  unsigned long long rows, unsigned long long cols,
                                  unsigned long long batch, unsigned long long narrowCols) {
  baracuda_layout::transposeNarrow(in, out, rows, cols, batch, narrowCols);
}

// Parameters, packed: in (pointer), out (pointer), kg, cg, spatial, total (= groups * kg * cg *
// spatial), ndhwc (0 or 1), all u64: 56 bytes. Grid: (min(ceil(total / 256), 65535), 1, 1);
// block: (256, 1, 1).
extern "C" __global__ void __launch_bounds__(256)
    baracuda_flip_filter_b16(const unsigned short* in, unsigned short* out, unsigned long long kg,
                             unsigned long long cg, unsigned long long spatial,
                             unsigned long long total, unsigned long long ndhwc) {
  baracuda_layout::flipFilter(in, out, kg, cg, spatial, total, ndhwc);
}

extern "C" __global__ void __launch_bounds__(256)
    baracuda_flip_filter_b32(const unsigned int* in, unsigned int* out, unsigned long long kg,
                             unsigned long long cg, unsigned long long spatial,
                             unsigned long long total, unsigned long long ndhwc) {
  baracuda_layout::flipFilter(in, out, kg, cg, spatial, total, ndhwc);
}

extern "C" __global__ void __launch_bounds__(256)
    baracuda_flip_filter_b64(const unsigned long long* in, unsigned long long* out,
                             unsigned long long kg, unsigned long long cg,
                             unsigned long long spatial, unsigned long long total,
                             unsigned long long ndhwc) {
  baracuda_layout::flipFilter(in, out, kg, cg, spatial, total, ndhwc);
}
