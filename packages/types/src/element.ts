/** Element kinds a baracuda kernel can read or write. String-valued so they print well. */
export const ElementKind = {
  F16: 'f16',
  Bf16: 'bf16',
  F32: 'f32',
  F64: 'f64',
  I8: 'i8',
  U8: 'u8',
  I16: 'i16',
  U16: 'u16',
  I32: 'i32',
  U32: 'u32',
  I64: 'i64',
  U64: 'u64',
  Bool: 'bool',
} as const;
export type ElementKind = (typeof ElementKind)[keyof typeof ElementKind];
