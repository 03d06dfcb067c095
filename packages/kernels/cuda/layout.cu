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
