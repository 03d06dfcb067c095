/**
 * @baracuda/driver: CUDA devices, streams, device buffers, events and
 * kernel modules for Node.js, over the CUDA driver API loaded at run time (dlopen of
 * libcuda.so.1 at first use; nothing is loaded by `import`).
 */
export { DeviceBuffer, type DeviceBufferOptions } from './buffer.js';
export { type ComputeCapability, Device, type MemoryInfo } from './device.js';
export { type DriverProbe, probe } from './driver.js';
export { Event, type EventOptions } from './event.js';
export { KernelFunction, KernelParams, Module } from './module.js';
export { PinnedHostBuffer, type PinnedHostBufferOptions } from './pinned.js';
export { Stream, type StreamOptions } from './stream.js';
