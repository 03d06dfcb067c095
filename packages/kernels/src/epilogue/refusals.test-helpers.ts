/**
 * Every refusal of the epilogue options, with its error class and exact message: shared by the
 * tests of Epilogue.create and of both descriptors' withEpilogue.
 */
import { InvalidArgumentError, InvalidProblemError } from '@baracuda/types';

export const EPILOGUE_REFUSALS: [
  unknown,
  typeof InvalidArgumentError | typeof InvalidProblemError,
  string,
][] = [
  [
    null,
    InvalidArgumentError,
    'Expected an object {bias?, activation?, slope?, min?, max?, residual?} for epilogue but received null',
  ],
  [
    'relu',
    InvalidArgumentError,
    'Expected an object {bias?, activation?, slope?, min?, max?, residual?} for epilogue but received "relu" of type string',
  ],
  [
    [1],
    InvalidArgumentError,
    'Expected an object {bias?, activation?, slope?, min?, max?, residual?} for epilogue but received an array of length 1',
  ],
  [
    { act: 'relu' },
    InvalidProblemError,
    'Expected only the keys bias, activation, slope, min, max, residual in the epilogue options but received the key "act"',
  ],
  [
    { bias: 1 },
    InvalidArgumentError,
    'Expected a boolean or undefined for epilogue.bias but received 1 of type number',
  ],
  [
    { residual: 'yes' },
    InvalidArgumentError,
    'Expected a boolean or undefined for epilogue.residual but received "yes" of type string',
  ],
  [
    { activation: 'swish' },
    InvalidArgumentError,
    `Expected one of 'identity', 'relu', 'leakyRelu', 'gelu', 'geluTanh', 'silu', 'sigmoid', 'tanh', 'clamp' for epilogue.activation but received "swish" of type string`,
  ],
  [
    { activation: null },
    InvalidArgumentError,
    `Expected one of 'identity', 'relu', 'leakyRelu', 'gelu', 'geluTanh', 'silu', 'sigmoid', 'tanh', 'clamp' for epilogue.activation but received null`,
  ],
  [
    { activation: 3 },
    InvalidArgumentError,
    `Expected one of 'identity', 'relu', 'leakyRelu', 'gelu', 'geluTanh', 'silu', 'sigmoid', 'tanh', 'clamp' for epilogue.activation but received 3 of type number`,
  ],
  [
    { activation: 'relu', slope: 0.1 },
    InvalidProblemError,
    "Expected no slope for activation 'relu' (slope is leakyRelu's) but received slope 0.1 of type number",
  ],
  [
    { slope: 0.1 },
    InvalidProblemError,
    "Expected no slope for activation 'identity' (slope is leakyRelu's) but received slope 0.1 of type number",
  ],
  [
    { activation: 'relu', min: 0 },
    InvalidProblemError,
    "Expected no min for activation 'relu' (min and max are clamp's) but received min 0 of type number",
  ],
  [
    { activation: 'gelu', max: 6 },
    InvalidProblemError,
    "Expected no max for activation 'gelu' (min and max are clamp's) but received max 6 of type number",
  ],
  [
    { activation: 'leakyRelu', slope: Number.NaN },
    InvalidArgumentError,
    'Expected a number (not NaN) for epilogue.slope but received NaN of type number',
  ],
  [
    { activation: 'leakyRelu', slope: '0.1' },
    InvalidArgumentError,
    'Expected a number (not NaN) for epilogue.slope but received "0.1" of type string',
  ],
  [
    { activation: 'leakyRelu', slope: Number.POSITIVE_INFINITY },
    InvalidArgumentError,
    'Expected a finite number for epilogue.slope but received Infinity of type number',
  ],
  [
    { activation: 'clamp', min: Number.NaN },
    InvalidArgumentError,
    'Expected a number (not NaN) for epilogue.min but received NaN of type number',
  ],
  [
    { activation: 'clamp', max: Number.NaN },
    InvalidArgumentError,
    'Expected a number (not NaN) for epilogue.max but received NaN of type number',
  ],
  [
    { activation: 'clamp', min: Number.POSITIVE_INFINITY },
    InvalidArgumentError,
    'Expected a number below Infinity for epilogue.min but received Infinity of type number',
  ],
  [
    { activation: 'clamp', max: Number.NEGATIVE_INFINITY },
    InvalidArgumentError,
    'Expected a number above -Infinity for epilogue.max but received -Infinity of type number',
  ],
  [
    { activation: 'clamp', min: 6, max: 0 },
    InvalidProblemError,
    'Expected min <= max for clamp but received min 6 and max 0',
  ],
];
