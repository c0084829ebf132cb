import { z } from 'zod';
import { withLabels } from './common.ts';
import { USERNAME_RE } from './accounts.ts';

// Schemas of the skins feature, shared by the server and the web app.

/** Largest skin file accepted; a 64×64 skin is 1–5 KB, a 512×512 HD one rarely over 100 KB. */
export const SKIN_MAX_BYTES = 256 * 1024;
/** Skin widths: 64 and its HD multiples; the height is the width (modern) or half of it (legacy). */
export const SKIN_MIN_WIDTH = 64;
export const SKIN_MAX_WIDTH = 512;
export const HEAD_MIN_SIZE = 8;
export const HEAD_MAX_SIZE = 512;
export const HEAD_DEFAULT_SIZE = 64;

export const SKIN_MODELS = ['default', 'slim'] as const;
export const SkinModel = z.enum(SKIN_MODELS, { error: 'Модель: default (обычные руки) или slim (тонкие руки)' });
export type SkinModel = z.infer<typeof SkinModel>;

/** Texts the profile page shows (spec §4, §8) and the upload rules the server enforces. */
export const SKIN_TEXTS = {
  pickPng: 'Пожалуйста, выберите PNG-файл.',
  uploaded: 'Скин успешно загружен!',
  uploadFailed: 'Ошибка загрузки скина.',
  noFile: 'Выберите файл скина (PNG) в поле «skin»',
  notMultipart: 'Отправьте скин формой multipart/form-data с файлом в поле «skin»',
  badForm: 'Не удалось прочитать форму загрузки. Попробуйте ещё раз.',
  unknownField: 'В форме загрузки есть лишние поля: нужен только файл «skin» и, по желанию, «model»',
  oneFile: 'Загрузите один файл скина',
  tooBig: 'Файл скина слишком большой: не больше 256 КБ',
  notPng: 'Скин должен быть PNG-изображением',
  broken: 'Файл PNG повреждён или обрезан',
  animated: 'Анимированный PNG не подходит для скина: нужен обычный PNG',
  badSize: (w: number, h: number) =>
    `Неподходящий размер скина: ${w}×${h}. Нужен 64×64 или 64×32 (HD: 128×128, 256×256, 512×512 или вдвое ниже)`,
  modelSaved: 'Модель сохранена',
  noCustomSkin: 'Сначала загрузите свой скин',
  playerNotFound: 'Игрок не найден',
} as const;

export const SkinInfo = z.object({
  username: z.string(),
  /** false: the player has not uploaded a skin and gets the site's default one. */
  custom: z.boolean(),
  model: SkinModel,
  width: z.number(),
  height: z.number(),
  /** Changes whenever the skin changes; `?v=<version>` on the image URLs makes them cacheable forever. */
  version: z.string(),
  skin_url: z.string(),
  head_url: z.string(),
});
export type SkinInfo = z.infer<typeof SkinInfo>;

export const SkinUploadResponse = SkinInfo.extend({ message: z.string() });
export type SkinUploadResponse = z.infer<typeof SkinUploadResponse>;

export const SkinModelBody = withLabels(z.strictObject({ model: SkinModel }), { model: 'Модель' });
export type SkinModelBody = z.infer<typeof SkinModelBody>;

const Version = z.string().max(64, 'Некорректная версия').optional();

/** Unknown keys are allowed: the spec's client adds its own cache-busting parameter. */
export const SkinImageQuery = withLabels(z.object({ v: Version }), { v: 'Версия' });

export const HeadQuery = withLabels(
  z.object({
    size: z.coerce
      .number({ error: `Размер головы: целое число от ${HEAD_MIN_SIZE} до ${HEAD_MAX_SIZE}` })
      .int(`Размер головы: целое число от ${HEAD_MIN_SIZE} до ${HEAD_MAX_SIZE}`)
      .min(HEAD_MIN_SIZE, `Размер головы: целое число от ${HEAD_MIN_SIZE} до ${HEAD_MAX_SIZE}`)
      .max(HEAD_MAX_SIZE, `Размер головы: целое число от ${HEAD_MIN_SIZE} до ${HEAD_MAX_SIZE}`)
      .default(HEAD_DEFAULT_SIZE),
    v: Version,
  }),
  { v: 'Версия', size: 'Размер' },
);

export const PlayerParams = withLabels(
  z.strictObject({
    username: z.string().regex(USERNAME_RE, 'Имя игрока: от 3 до 16 символов — латинские буквы, цифры и «_»'),
  }),
  { username: 'Игрок' },
);
