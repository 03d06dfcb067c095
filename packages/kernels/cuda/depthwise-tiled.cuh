// NCDHW, the tiled forward/backward-data kernel body `tiled` (included by depthwise.cu inside its
// namespace; toAcc, store, reach and forEachTap are that file's).
//
// Stride 1, NCDHW. A block owns a tile of one plane's output, 32 wide and 8 * `rows` tall (thread
// row ty takes output rows ty * rows .. + rows - 1), over
// the output depths [blockIdx.y * chunk, + chunk), and marches through the input depths those
// read, one slice at a time: the slice's patch the tile needs goes to shared memory (in the
// accumulator type) and each thread adds the slice's kH x kW taps to every output depth that slice
// feeds, held in registers: acc[r][j] is output depth od + j of the thread's row r, where od is
// the depth the current slice completes; j = (kD-1-kd) * dD for filter depth kd, SPAN >= (kD-1)*dD
// + 1. So each input element is read from global memory once per tile (plus the tile's halo),
// where one thread per output reads it kD*kH*kW times. The next slice's loads are in flight while
// the current one is summed (registers, then the other of two patch buffers: one barrier a slice).
// With `flip` it runs the filter reversed: backward-data of a stride-1 convolution with padding
// d*(k-1) - p. K3 (kH = kW = 3, dH = 1): the taps are in registers and each patch value a thread
// reads serves every output row it feeds; K = 0: any kH, kW, dH, the taps read from shared memory.
//
// grid: (tilesH * tilesW, ceil(outD / chunk), min(planes, 65535)); block (32, 8); dynamic shared
// memory (kD*kH*kW + 2*rowsIn*colsIn) * sizeof(Acc), rowsIn = 8*rows + (kH-1)*dH, colsIn = 32 +
// (kW-1)*dW, rowsIn*colsIn <= 1536, inH*inW < 2^31. `in`/`out` extents are this launch's operands
// (x/y forward, dy/dx backward-data).
template <typename T, typename Acc, int SPAN, bool K3>
__device__ __forceinline__ void tiled(const T* __restrict__ in, const T* __restrict__ w,
                                      T* __restrict__ out, i64 planes, int channels, int inD,
                                      int inH, int inW, int outD, int outH, int outW, int kD,
                                      int kH, int kW, int pD, int pH, int pW, int dD, int dH,
                                      int dW, int flip, int tilesW, int chunk, int rows, Acc alpha,
                                      Acc beta) {
  extern __shared__ unsigned char smemBytes[];
  Acc* taps = reinterpret_cast<Acc*>(smemBytes);
  const int nTaps = kD * kH * kW;
  const int rowsIn = kRowsPerPass * rows + (kH - 1) * dH;
  const int colsIn = kTileW + (kW - 1) * dW;
  const int patchSize = rowsIn * colsIn;
  Acc* patches = taps + nTaps;  // two buffers of patchSize
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * kTileW + tx;
  const int oh0 = (blockIdx.x / tilesW) * kRowsPerPass * rows;
  const int ow0 = (blockIdx.x % tilesW) * kTileW;
  const int row0 = ty * rows;  // this thread's first output row in the tile
  const int odLo = blockIdx.y * chunk;
  const int odHi = min(outD, odLo + chunk);
  const int reachD = (kD - 1) * dD;
  const int idLo = odLo - pD, idHi = odHi - 1 - pD + reachD;  // the input depths the chunk reads
  const int idFirst = max(idLo, 0), idLast = min(idHi, inD - 1);
  // The filter depth feeding acc[.][j], as its first tap's index, or -1 for none.
  int tapAt[SPAN];
#pragma unroll
  for (int j = 0; j < SPAN; j++) {
    tapAt[j] = j <= reachD && j % dD == 0 ? (kD - 1 - j / dD) * kH * kW : -1;
  }
  // This thread's patch elements tid + k * kThreads: their offset in an input slice, -1 for one
  // outside it (a zero), -2 for none.
  int at[kPatchLoads];
#pragma unroll
  for (int k = 0; k < kPatchLoads; k++) {
    const int i = tid + k * kThreads;
    const int r = i / colsIn;
    const int ih = oh0 - pH + r;
    const int iw = ow0 - pW + (i - r * colsIn);
    at[k] = i >= patchSize ? -2 : ih >= 0 && ih < inH && iw >= 0 && iw < inW ? ih * inW + iw : -1;
  }
  const i64 inPlane = (i64)inD * inH * inW;
  const i64 outPlane = (i64)outD * outH * outW;
  for (i64 plane = blockIdx.z; plane < planes; plane += gridDim.z) {
    const int c = (int)(plane % channels);
    __syncthreads();  // the previous plane's taps and patches are no longer read
    for (int t = tid; t < nTaps; t += kThreads) {
      taps[t] = toAcc(w[(i64)c * nTaps + (flip ? nTaps - 1 - t : t)]);
    }
    // K3: the 9 taps of each filter depth in registers (wr[j] feeds acc[.][j]).
    Acc wr[K3 ? SPAN : 1][9];
    if (K3) {
      __syncthreads();
#pragma unroll
      for (int j = 0; j < (K3 ? SPAN : 1); j++) {
#pragma unroll
        for (int t = 0; t < 9; t++) wr[j][t] = tapAt[j] < 0 ? Acc(0) : taps[tapAt[j] + t];
      }
    }
    const T* src = in + plane * inPlane;
    T* dst = out + plane * outPlane;
    Acc next[kPatchLoads];
    auto fetch = [&](int id) {
      const T* slice = src + (i64)id * inH * inW;
#pragma unroll
      for (int k = 0; k < kPatchLoads; k++) next[k] = at[k] >= 0 ? toAcc(slice[at[k]]) : Acc(0);
    };
    if (idFirst <= idLast) fetch(idFirst);
    Acc acc[kMaxRows][SPAN];
#pragma unroll
    for (int r = 0; r < kMaxRows; r++) {
#pragma unroll
      for (int j = 0; j < SPAN; j++) acc[r][j] = Acc(0);
    }
    int buf = 0;
    for (int id = idLo; id <= idHi; id++) {
      if (id >= idFirst && id <= idLast) {  // the same for the whole block
        Acc* patch = patches + buf * patchSize;
#pragma unroll
        for (int k = 0; k < kPatchLoads; k++) {
          if (at[k] != -2) patch[tid + k * kThreads] = next[k];
        }
        __syncthreads();  // this patch is whole; the one before last is no longer read
        if (id < idLast) fetch(id + 1);
        if (K3) {
          // Input row row0 + q feeds output row r = q - kh through filter row kh.
#pragma unroll
          for (int q = 0; q < kMaxRows + 2; q++) {
            if (q >= rows + 2) continue;
            const Acc* px = patch + (row0 + q) * colsIn + tx;
            const Acc v0 = px[0], v1 = px[dW], v2 = px[2 * dW];
#pragma unroll
            for (int kh = 0; kh < 3; kh++) {
              const int r = q - kh;
              if (r < 0 || r >= kMaxRows || r >= rows) continue;
#pragma unroll
              for (int j = 0; j < (K3 ? SPAN : 1); j++) {
                if (tapAt[j] < 0) continue;
                acc[r][j] += v0 * wr[j][kh * 3] + v1 * wr[j][kh * 3 + 1] + v2 * wr[j][kh * 3 + 2];
              }
            }
          }
        } else {
          for (int kh = 0; kh < kH; kh++) {
            for (int kw = 0; kw < kW; kw++) {
              const Acc* px = patch + (row0 + kh * dH) * colsIn + tx + kw * dW;
              Acc v[kMaxRows];
#pragma unroll
              for (int r = 0; r < kMaxRows; r++) v[r] = r < rows ? px[r * colsIn] : Acc(0);
              const int tap = kh * kW + kw;
#pragma unroll
              for (int j = 0; j < SPAN; j++) {
                if (tapAt[j] < 0) continue;
                const Acc t = taps[tapAt[j] + tap];
#pragma unroll
                for (int r = 0; r < kMaxRows; r++) acc[r][j] += v[r] * t;
              }
            }
          }
        }
        buf ^= 1;
      }
      const int od = id + pD - reachD;  // every input slice of output depth od is summed
      if (od >= odLo) {
        const int ow = ow0 + tx;
#pragma unroll
        for (int r = 0; r < kMaxRows; r++) {
          const int oh = oh0 + row0 + r;
          if (r < rows && oh < outH && ow < outW) {
            store<T, Acc>(dst, ((i64)od * outH + oh) * outW + ow, acc[r][0], alpha, beta);
          }
        }
      }
#pragma unroll
      for (int r = 0; r < kMaxRows; r++) {
#pragma unroll
        for (int j = 0; j + 1 < SPAN; j++) acc[r][j] = acc[r][j + 1];
        acc[r][SPAN - 1] = Acc(0);
      }
    }
  }
}
