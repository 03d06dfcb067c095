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
// the out index where the total passes 2^31.
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
};

// I: the index type of the out decomposition (32-bit where the total fits: 64-bit division is
// several times slower); offsets are 64-bit either way.
template <typename T, typename I>
__device__ __forceinline__ void gather(const T* __restrict__ in, T* __restrict__ out,
                                       const GatherMap& m) {
  const I total = (I)m.total;
  const I step = (I)gridDim.x * blockDim.x;
  for (I o = (I)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += step) {
    I rem = o;
    long long offset = m.base;
    long long coord[3] = {-m.pad[0], -m.pad[1], -m.pad[2]};
#pragma unroll
    for (int k = 7; k >= 0; k--) {
      const I dim = (I)m.dims[k];
      // A dim of 1 (a patch's 1-deep kernel, a batch of 1) adds nothing: skip its division.
      if (dim == 1) continue;
      const I q = rem / dim;
      const long long i = (long long)(rem - q * dim);
      rem = q;
      offset += i * m.strides[k];
      const long long a = m.axis[k];
      if (a >= 0) coord[a] += i * m.mul[k];
    }
    bool inside = true;
#pragma unroll
    for (int a = 0; a < 3; a++) inside = inside && coord[a] >= 0 && coord[a] < m.extent[a];
    out[o] = inside ? in[offset] : T(0);
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
      // A plain dim of 1 adds nothing (a spatial one still has its block and phase).
      if (dim == 1 && m.axis[k] < 0) continue;
      const I q = rem / dim;
      const long long i = (long long)(rem - q * dim);
      rem = q;
      const long long a = m.axis[k];
      if (a < 0) {
        offset += i * m.strides[k];
      } else {
        const I t = (I)(i + m.pad[a]);
        const I block = (I)m.block[a];
        const I j = t / block;
        if ((long long)j >= m.count[a]) covered = false;
        offset += (long long)j * m.blockStride[a] + (long long)(t - j * block) * m.phaseStride[a];
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

#define BARACUDA_S2D_KERNELS(SUFFIX, T)                                                      \
  extern "C" __global__ void baracuda_s2d_gather_##SUFFIX(const T* in, T* out, GatherMap m) { \
    if (m.total < 0x80000000LL) baracuda_s2d::gather<T, unsigned>(in, out, m);               \
    else baracuda_s2d::gather<T, unsigned long long>(in, out, m);                            \
  }                                                                                          \
  extern "C" __global__ void baracuda_s2d_inverse_##SUFFIX(const T* in, T* out,              \
                                                           InverseMap m) {                   \
    if (m.total < 0x80000000LL) baracuda_s2d::inverse<T, unsigned>(in, out, m);              \
    else baracuda_s2d::inverse<T, unsigned long long>(in, out, m);                           \
  }

BARACUDA_S2D_KERNELS(b16, unsigned short)
BARACUDA_S2D_KERNELS(b32, unsigned int)
BARACUDA_S2D_KERNELS(b64, unsigned long long)
