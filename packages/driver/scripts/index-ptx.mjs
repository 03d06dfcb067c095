// The hand-written PTX kernel of the module checks: src/gpu.test.ts and
// scripts/module-device-check.mjs both launch it.
//
// Checked with `ptxas -arch=sm_90` (CUDA 13). Parameters (out: u64, n: u32,
// tag: u64) put `tag` at offset 16, after 4 bytes of padding: the launch only
// reads it back right if KernelParams pads like the compiler.
export const INDEX_PTX = `.version 7.0
.target sm_52
.address_size 64

// out[i] = (blockIdx.x << 16) | threadIdx.x for i < n; out[n] and out[n + 1]
// get the low and high words of tag; threads past n + 1 write nothing.
.visible .entry baracuda_test_indices(
	.param .u64 out,
	.param .u32 n,
	.param .u64 tag
)
{
	.reg .pred %p<3>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<7>;

	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.u32 %r5, %r3, %r4, %r2;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r5, 4;
	add.u64 %rd4, %rd2, %rd3;
	setp.lt.u32 %p1, %r5, %r1;
	@%p1 bra INDEX;
	sub.u32 %r6, %r5, %r1;
	setp.gt.u32 %p2, %r6, 1;
	@%p2 bra DONE;
	ld.param.u64 %rd5, [tag];
	shl.b32 %r7, %r6, 5;
	shr.u64 %rd6, %rd5, %r7;
	cvt.u32.u64 %r8, %rd6;
	st.global.u32 [%rd4], %r8;
	bra.uni DONE;
INDEX:
	shl.b32 %r9, %r3, 16;
	or.b32 %r9, %r9, %r2;
	st.global.u32 [%rd4], %r9;
DONE:
	ret;
}
`;

/** What INDEX_PTX writes for `threads` threads in blocks of `blockSize`, given `n` and `tag`. */
export function expectedIndices(threads, blockSize, n, tag) {
  const out = new Uint32Array(threads);
  for (let i = 0; i < threads; i++) {
    if (i < n) out[i] = ((Math.floor(i / blockSize) << 16) | (i % blockSize)) >>> 0;
    else if (i === n) out[i] = Number(tag & 0xffffffffn);
    else if (i === n + 1) out[i] = Number(tag >> 32n);
    else out[i] = 0xffffffff;
  }
  return out;
}
