// Images the owner uploads: the limits and the texts. No zod here: the form kit imports this file
// alone ('@kubik/contract/media-limits'), and a first page with a form must not carry the schemas.

/** The file as uploaded, before anything is decoded. */
export const MEDIA_MAX_BYTES = 8 * 1024 * 1024;
/** Width and height, each, read from the file's header. */
export const MEDIA_MAX_SIDE = 4096;
/** All frames together (an animated GIF or WebP decodes every frame). */
export const MEDIA_MAX_PIXELS = 40_000_000;
export const MEDIA_TYPES = ['png', 'jpeg', 'webp', 'gif'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
/** What the file input offers. */
export const MEDIA_ACCEPT = 'image/png,image/jpeg,image/webp,image/gif';

export const MEDIA_TEXTS = {
  notMultipart: 'Отправьте картинку формой multipart/form-data с файлом в поле «file»',
  noFile: 'Выберите файл картинки (PNG, JPEG, WebP или GIF)',
  badForm: 'Не удалось прочитать форму загрузки. Попробуйте ещё раз.',
  unknownField: 'В форме загрузки есть лишние поля: нужен только файл «file»',
  oneFile: 'Загрузите один файл',
  tooBig: 'Файл слишком большой: не больше 8 МБ',
  wrongType: 'Поддерживаются только картинки PNG, JPEG, WebP и GIF',
  broken: 'Файл картинки повреждён или обрезан',
  animatedPng: 'Анимированный PNG не поддерживается: загрузите GIF или WebP',
  tooLarge: `Картинка слишком большая: не больше ${MEDIA_MAX_SIDE}×${MEDIA_MAX_SIDE} точек`,
  tooManyPixels: 'В анимации слишком много кадров для её размера',
  notFound: 'Файл не найден',
  inUse: 'Картинка используется, удалить нельзя',
  deleted: 'Картинка удалена',
  uploaded: 'Картинка загружена',
} as const;
