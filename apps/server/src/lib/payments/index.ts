export * from './types.ts';
export { tbankToken } from './tbank.ts';
export { yoomoneyHash } from './yoomoney.ts';
export { freekassaApiSign, freekassaFormSign, freekassaNotifySign } from './freekassa.ts';
