// Space-to-depth transforms for the patch-embedding and stem routes of Conv3dPlan (see
// src/space-to-depth.ts, which computes the maps, and src/space-to-depth-host.ts, their meaning
// on the host).
//
// Two kernels per element size; bytes are moved, never converted, so one kernel serves f16 and
// bf16 (b16), f32 (b32) and f64 (b64):
//   gather:  out (dense, 8 dims) from in: each out index adds strides[k]*i to the in offset and,
//            for a spatial dim, mul[k]*i to that axis's coordinate; a coordinate outside
//            [0, extent) reads zero (the stem's materialized padding, a filter's missing taps).
//   inverse: out (the original tensor, dense, 5 dims) from the transformed one: spatial
//            coordinate s is block (s + pad) / block, phase (s + pad) % block; a block past
//            `count` is a position no element of in holds: zeroed, kept, or scaled by beta (the
//            one place arithmetic happens, per the element kind `kind`).
// One thread per out element, grid-stride; offsets are 64-bit, and so is the decomposition of
// the out index where the total passes 2^31. Below that, each division by a dim (or a block) is
// a multiply-high and a shift by the magic number the host packed beside it (`div`, see
// src/fast-division.ts: m in the low 32 bits, the shift above): a 32-bit division is a chain of
// ~20 instructions, and the chain of 5-8 of them per element was what the transforms spent their
// time on, far more than moving the bytes.
//
// Regenerate src/space-to-depth-ptx.ts with `node scripts/gen-ptx.mjs` (needs nvcc).

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace baracuda_s2d {

struct GatherMap {
  long long dims[8];
  long long strides[8];
  long long axis[8];
  long long mul[8];
  long long pad[3];
  long long extent[3];
  long long base;
  long long total;
  unsigned long long div[8];
  // Consecutive out elements per thread (1-4, the host's choice): see gather().
  long long perThread;
};

struct InverseMap {
  long long dims[5];
  long long strides[5];
  long long axis[5];
  long long pad[3];
  long long block[3];
  long long count[3];
  long long blockStride[3];
  long long phaseStride[3];
  long long total;
  // 0: zero an uncovered position, 1: keep it, 2: scale it by beta.
  long long mode;
  // The element kind for mode 2: 0 f32, 1 f64, 2 f16, 3 bf16.
  long long kind;
  double beta;
  unsigned long long div[5];
  unsigned long long blockDiv[3];
};

// n / d by the magic number `magic` of d (exact for n < 2^31); d = 1 has none and is n itself.
__device__ __forceinline__ unsigned quotient(unsigned n, unsigned d, unsigned long long magic) {
  if (d == 1) return n;
  return __umulhi(n, (unsigned)magic) >> (unsigned)(magic >> 32);
}
// Past 2^31 the magic numbers do not hold: plain 64-bit division.
__device__ __forceinline__ unsigned long long quotient(unsigned long long n, unsigned long long d,
                                                      unsigned long long) {
  return n / d;
}

// coord[a] += v without indexing an array by a runtime value (that puts it in local memory).
template <typename C>
__device__ __forceinline__ void addTo(long long a, C v, C& c0, C& c1, C& c2) {
  if (a == 0) c0 += v;
  else if (a == 1) c1 += v;
  else if (a == 2) c2 += v;
}

// I: the index type of the out decomposition (32-bit where the total fits, with fast division);
// offsets are 64-bit either way. C: the coordinates' type, 32-bit on the 32-bit path (a
// coordinate lies in [-pad, total)). Each thread moves `perThread` consecutive out elements: it
// decomposes the first one's index, then steps the innermost index with carries into the outer
// ones (an odometer), so the division chain is paid once per perThread elements.
template <typename T, typename I, typename C>
__device__ __forceinline__ void gather(const T* __restrict__ in, T* __restrict__ out,
                                       const GatherMap& m) {
  const I total = (I)m.total;
  const I per = (I)m.perThread;
  const I step = (I)gridDim.x * blockDim.x * per;
  for (I o = ((I)blockIdx.x * blockDim.x + threadIdx.x) * per; o < total; o += step) {
    I rem = o;
    I idx[8];
    long long offset = m.base;
    C c0 = (C)-m.pad[0], c1 = (C)-m.pad[1], c2 = (C)-m.pad[2];
#pragma unroll
    for (int k = 7; k >= 0; k--) {
      idx[k] = 0;
      const I dim = (I)m.dims[k];
      // A dim of 1 (a patch's 1-deep kernel, a batch of 1) adds nothing: skip its division.
      if (dim == 1) continue;
      const I q = quotient(rem, dim, m.div[k]);
      const I i = rem - q * dim;
      rem = q;
      idx[k] = i;
      offset += (long long)i * m.strides[k];
      addTo(m.axis[k], (C)i * (C)m.mul[k], c0, c1, c2);
    }
    for (I v = 0; v < per && o + v < total; v++) {
      if (v > 0) {
        // The next element: the innermost index up by one, carrying where it reaches its dim
        // (never past the outermost: o + v < total).
#pragma unroll
        for (int k = 7; k >= 0; k--) {
          const I dim = (I)m.dims[k];
          if (dim == 1) continue;
          offset += m.strides[k];
          addTo(m.axis[k], (C)m.mul[k], c0, c1, c2);
          if (++idx[k] < dim) break;
          idx[k] = 0;
          offset -= (long long)dim * m.strides[k];
          addTo(m.axis[k], -((C)dim * (C)m.mul[k]), c0, c1, c2);
        }
      }
      const bool inside = c0 >= 0 && c0 < (C)m.extent[0] && c1 >= 0 && c1 < (C)m.extent[1] &&
                          c2 >= 0 && c2 < (C)m.extent[2];
      out[o + v] = inside ? in[offset] : T(0);
    }
  }
}

// The gather in vectors (src/gather-vector.ts plans it where it applies: no coordinate can leave
// the tensor, some run of in elements is contiguous and aligned): each thread loads V = sizeof(VT)
// / sizeof(T) consecutive in elements as one vector and stores them V apart by `vstride` in out:
// as one vector where vstride is 1 (NDHWC patch folds, the backward-filter permutes), else as V
// single stores (NCDHW patch folds, where lanes write consecutive out elements for each of the V).
// One index decomposition per V elements instead of one per element.
struct VecGatherMap {
  // The out index space, the vector's dim counted in vectors; dims of 1 are skipped.
  long long dims[8];
  // In and out offsets per step of each index (elements): the vector's dim steps V and V·vstride.
  long long strides[8];
  long long outStrides[8];
  long long base;
  // Vectors.
  long long total;
  unsigned long long div[8];
  long long vstride;
};

template <typename T, typename VT, typename I>
__device__ __forceinline__ void gatherVector(const T* __restrict__ in, T* __restrict__ out,
                                             const VecGatherMap& m) {
  constexpr int V = sizeof(VT) / sizeof(T);
  const I total = (I)m.total;
  const I step = (I)gridDim.x * blockDim.x;
  for (I o = (I)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += step) {
    I rem = o;
    long long src = m.base;
    long long dst = 0;
#pragma unroll
    for (int k = 7; k >= 0; k--) {
      const I dim = (I)m.dims[k];
      if (dim == 1) continue;
      const I q = quotient(rem, dim, m.div[k]);
      const I i = rem - q * dim;
      rem = q;
      src += (long long)i * m.strides[k];
      dst += (long long)i * m.outStrides[k];
    }
    const VT v = *reinterpret_cast<const VT*>(in + src);
    if (m.vstride == 1) {
      *reinterpret_cast<VT*>(out + dst) = v;
    } else {
      T e[V];
      memcpy(e, &v, sizeof v);
#pragma unroll
      for (int u = 0; u < V; u++) out[dst + (long long)u * m.vstride] = e[u];
    }
  }
}

__device__ __forceinline__ unsigned short scaled16(unsigned short v, float beta, long long kind) {
  if (kind == 3) {
    __nv_bfloat16 h = __ushort_as_bfloat16(v);
    return __bfloat16_as_ushort(__float2bfloat16_rn(beta * __bfloat162float(h)));
  }
  __half h = __ushort_as_half(v);
  return __half_as_ushort(__float2half_rn(beta * __half2float(h)));
}

__device__ __forceinline__ unsigned int scaled(unsigned int v, const InverseMap& m) {
  return __float_as_uint((float)m.beta * __uint_as_float(v));
}
__device__ __forceinline__ unsigned long long scaled(unsigned long long v, const InverseMap& m) {
  return __double_as_longlong(m.beta * __longlong_as_double(v));
}
__device__ __forceinline__ unsigned short scaled(unsigned short v, const InverseMap& m) {
  return scaled16(v, (float)m.beta, m.kind);
}

template <typename T, typename I>
__device__ __forceinline__ void inverse(const T* __restrict__ in, T* __restrict__ out,
                                        const InverseMap& m) {
  const I total = (I)m.total;
  const I step = (I)gridDim.x * blockDim.x;
  for (I o = (I)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += step) {
    I rem = o;
    long long offset = 0;
    bool covered = true;
#pragma unroll
    for (int k = 4; k >= 0; k--) {
      const I dim = (I)m.dims[k];
      const long long a = m.axis[k];
      // A plain dim of 1 adds nothing (a spatial one still has its block and phase).
      if (dim == 1 && a < 0) continue;
      const I q = quotient(rem, dim, m.div[k]);
      const I i = rem - q * dim;
      rem = q;
      if (a < 0) {
        offset += (long long)i * m.strides[k];
      } else {
        // Written out per axis: indexing the map's arrays by a runtime axis goes through memory.
        const int ax = (int)a;
        const long long pad = ax == 0 ? m.pad[0] : ax == 1 ? m.pad[1] : m.pad[2];
        const long long blk = ax == 0 ? m.block[0] : ax == 1 ? m.block[1] : m.block[2];
        const long long cnt = ax == 0 ? m.count[0] : ax == 1 ? m.count[1] : m.count[2];
        const unsigned long long bdiv =
            ax == 0 ? m.blockDiv[0] : ax == 1 ? m.blockDiv[1] : m.blockDiv[2];
        const long long bs =
            ax == 0 ? m.blockStride[0] : ax == 1 ? m.blockStride[1] : m.blockStride[2];
        const long long ps =
            ax == 0 ? m.phaseStride[0] : ax == 1 ? m.phaseStride[1] : m.phaseStride[2];
        const I t = (I)(i + pad);
        const I block = (I)blk;
        const I j = quotient(t, block, bdiv);
        if ((long long)j >= cnt) covered = false;
        offset += (long long)j * bs + (long long)(t - j * block) * ps;
      }
    }
    if (covered) {
      out[o] = in[offset];
    } else if (m.mode == 0) {
      out[o] = T(0);
    } else if (m.mode == 2) {
      out[o] = scaled(out[o], m);
    }
  }
}

}  // namespace baracuda_s2d

using baracuda_s2d::GatherMap;
using baracuda_s2d::InverseMap;
using baracuda_s2d::VecGatherMap;

#define BARACUDA_S2D_KERNELS(SUFFIX, T)                                                      \
  extern "C" __global__ void baracuda_s2d_gather_##SUFFIX(const T* in, T* out, GatherMap m) { \
    if (m.total < 0x80000000LL) baracuda_s2d::gather<T, unsigned, int>(in, out, m);          \
    else baracuda_s2d::gather<T, unsigned long long, long long>(in, out, m);                 \
  }                                                                                          \
  extern "C" __global__ void baracuda_s2d_inverse_##SUFFIX(const T* in, T* out,              \
                                                           InverseMap m) {                   \
    /* t = i + pad < total + pad must stay below 2^31 for the magic numbers too. */          \
    if (m.total + m.pad[0] + m.pad[1] + m.pad[2] < 0x80000000LL)                             \
      baracuda_s2d::inverse<T, unsigned>(in, out, m);                                        \
    else baracuda_s2d::inverse<T, unsigned long long>(in, out, m);                           \
  }

BARACUDA_S2D_KERNELS(b16, unsigned short)
BARACUDA_S2D_KERNELS(b32, unsigned int)
BARACUDA_S2D_KERNELS(b64, unsigned long long)

// The vector gathers: element size (b16, b32, b64) by vector bytes (v4, v8, v16), V ≥ 2.
#define BARACUDA_S2D_VECTOR(SUFFIX, T, VB, VT)                                              \
  extern "C" __global__ void baracuda_s2d_gather_##SUFFIX##_v##VB(const T* in, T* out,     \
                                                                  VecGatherMap m) {         \
    if (m.total < 0x80000000LL) baracuda_s2d::gatherVector<T, VT, unsigned>(in, out, m);    \
    else baracuda_s2d::gatherVector<T, VT, unsigned long long>(in, out, m);                 \
  }

BARACUDA_S2D_VECTOR(b16, unsigned short, 4, unsigned int)
BARACUDA_S2D_VECTOR(b16, unsigned short, 8, uint2)
BARACUDA_S2D_VECTOR(b16, unsigned short, 16, uint4)
BARACUDA_S2D_VECTOR(b32, unsigned int, 8, uint2)
BARACUDA_S2D_VECTOR(b32, unsigned int, 16, uint4)
BARACUDA_S2D_VECTOR(b64, unsigned long long, 16, uint4)
