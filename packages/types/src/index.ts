export * from './element.js';
export * from './errors.js';
export * from './tensor.js';
