export * from './element.js';
export * from './errors.js';
export * from './half.js';
export * from './native-addon.js';
export * from './plan.js';
export * from './sku.js';
export * from './tensor.js';
export * from './validate.js';
