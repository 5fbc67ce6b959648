export * from './client/index.js';
export {
  decodeHeaderValue,
  encodeHeaderValue,
  headerStringOf,
  type ParamHeader,
  type ParamHeaderScan,
  scanParamHeaders,
  valueAtPath,
} from './header-values.js';
export * from './server/index.js';
