// Foreign `this` and look-alike driver objects, against the fake libcuda: every method and
// accessor checks its receiver's brand (not `instanceof`), and the arguments that take a driver
// object check the brand too, each with a typed error naming what was expected.
import { InvalidArgumentError } from '@baracuda/types';
import { afterAll, describe, expect, it } from 'vitest';
import { DeviceBuffer } from './buffer.js';
import { Device } from './device.js';
import { Event } from './event.js';
import { KernelParams, Module } from './module.js';
import { PinnedHostBuffer } from './pinned.js';
import { Stream } from './stream.js';
import { buildFakeLibcuda } from './testing/fake-libcuda.js';

const fake = buildFakeLibcuda();
if (fake) process.env.BARACUDA_CUDA_DRIVER_LIBRARY = fake;
const PTX = '.version 8.0\n.target sm_80\n.visible .entry noop() { ret; }\n';

type Member = (this: unknown, ...args: unknown[]) => unknown;
function memberOf(proto: object, key: string | symbol): Member {
  const d = Object.getOwnPropertyDescriptor(proto, key)!;
  return (d.get ?? d.value) as Member;
}

describe.skipIf(!fake)('receivers', () => {
  const device = Device.get(0);
  const stream = Stream.create(device);
  const event = Event.create(device);
  const buffer = DeviceBuffer.alloc(64);
  const pinned = PinnedHostBuffer.alloc(64);
  const module = Module.load(PTX);
  afterAll(() => {
    for (const o of [module, pinned, buffer, event, stream]) o.dispose();
  });

  it('every member refuses a plain object, a copy, a prototype object and another class', () => {
    const classes: [string, { prototype: object }, object][] = [
      ['Device', Device, device],
      ['Stream', Stream, stream],
      ['Event', Event, event],
      ['DeviceBuffer', DeviceBuffer, buffer],
      ['PinnedHostBuffer', PinnedHostBuffer, pinned],
      ['Module', Module, module],
      [
        'KernelFunction',
        module.getFunction('noop').constructor as never,
        module.getFunction('noop'),
      ],
      ['KernelParams', KernelParams, new KernelParams()],
    ];
    let checked = 0;
    for (const [name, cls, own] of classes) {
      const other = own === stream ? event : stream;
      for (const key of Reflect.ownKeys(cls.prototype)) {
        if (key === 'constructor') continue;
        const f = memberOf(cls.prototype, key);
        const label = key === Symbol.dispose ? '[Symbol.dispose]' : String(key);
        for (const receiver of [{}, { ...own }, Object.create(cls.prototype), other]) {
          expect(() => f.call(receiver), `${name}#${label}`).toThrow(InvalidArgumentError);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
    expect(() => memberOf(Stream.prototype, 'query').call({})).toThrow(
      'Expected a Stream for this of Stream#query but received an object',
    );
    expect(() =>
      memberOf(Device.prototype, 'toString').call(Object.create(Device.prototype)),
    ).toThrow('Expected a Device for this of Device#toString but received an instance of Device');
    expect(() => memberOf(Event.prototype, Symbol.dispose).call(stream)).toThrow(
      'Expected an Event for this of Event#[Symbol.dispose] but received an instance of Stream',
    );
  });

  it('a stream, device or source made with Object.create(Class.prototype) is refused by name', () => {
    const fakeStream = Object.create(Stream.prototype) as Stream;
    expect(() => DeviceBuffer.alloc(64, { stream: fakeStream })).toThrow(
      'Expected a Stream for options.stream but received an instance of Stream',
    );
    expect(() => event.record(fakeStream)).toThrow(
      'Expected a Stream for stream but received an instance of Stream',
    );
    expect(() => buffer.fill32(0, fakeStream)).toThrow(InvalidArgumentError);
    expect(() => Stream.create(Object.create(Device.prototype) as Device)).toThrow(
      'Expected a Device for device but received an instance of Device',
    );
    expect(() => buffer.copyFromSync(Object.create(DeviceBuffer.prototype))).toThrow(
      InvalidArgumentError,
    );
    // The real objects still work through the guarded members.
    expect(stream.query()).toBe(true);
    expect(buffer.devicePtr).toBeTypeOf('bigint');
    expect(String(device)).toMatch(/^Device 0: /);
  });
});
