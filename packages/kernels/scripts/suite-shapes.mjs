// The shared suite's shapes as the device scripts use them (budget, quick-probe): bundled into
// each by scripts/device/pack.sh.
import { readFileSync } from 'node:fs';
import { DeviceBuffer } from '../../driver/dist/index.js';
import { ElementKind } from '../../types/dist/index.js';
import { Conv3dDescriptor } from '../src/descriptor.ts';

const ELEMENT = {
  f16: ElementKind.F16,
  bf16: ElementKind.Bf16,
  f32: ElementKind.F32,
  tf32: ElementKind.F32,
};

/** The cases of packages/conformance/suites/conv3d-suite.json (read from the repository root). */
export function suiteCases() {
  return JSON.parse(readFileSync('packages/conformance/suites/conv3d-suite.json', 'utf8')).cases;
}

/** A suite case as a descriptor of `dtype` ('f16', 'bf16', 'f32', 'tf32') in `layout`. */
export function descriptorOf(c, dtype, layout) {
  let d = Conv3dDescriptor.create({
    batch: c.n,
    cIn: c.c_in,
    dIn: c.in[0],
    hIn: c.in[1],
    wIn: c.in[2],
    cOut: c.c_out,
    dFilt: c.k[0],
    hFilt: c.k[1],
    wFilt: c.k[2],
    element: ELEMENT[dtype],
  })
    .withPadding(...c.pad)
    .withStride(...c.stride)
    .withDilation(...c.dil)
    .withLayout(layout);
  if (c.groups) d = d.withGroups(c.groups);
  return d;
}

/** x, w, y on `stream` filled with 1.0 in the element's format (a timing needs no particular values). */
export function onesOperands(d, stream) {
  const make = (elements) => {
    const b = DeviceBuffer.alloc(elements * d.elementBytes, { stream });
    if (d.elementBytes === 2) b.fillSync16(d.element === ElementKind.F16 ? 0x3c00 : 0x3f80);
    else b.fillSync32(0x3f800000);
    return b;
  };
  return { x: make(d.xElements), w: make(d.wElements), y: make(d.yElements) };
}

/** One call of `pass` of `plan` on `ops` (x, w, y: the backward passes read y as dy). */
export const runOf = (plan, ops, pass) =>
  pass === 'fw'
    ? () => plan.runFw({ x: ops.x, w: ops.w, y: ops.y })
    : pass === 'bwData'
      ? () => plan.runBwData({ w: ops.w, dy: ops.y, dx: ops.x })
      : () => plan.runDw({ x: ops.x, dy: ops.y, dw: ops.w });
