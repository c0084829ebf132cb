import { z } from 'zod';
import { USERNAME_RE } from './accounts.ts';
import { IdParams } from './common.ts';

// Schemas of the capes feature, shared by the server and the web app.

/** Largest cape file accepted; a 64×32 cape is under 1 KB, a 512×256 HD one a few dozen. */
export const CAPE_MAX_BYTES = 256 * 1024;
/** HD capes up to 8× the 64×32 layout. */
export const CAPE_MAX_SCALE = 8;

export const CAPE_TEXTS = {
  noFile: 'Выберите файл плаща (PNG) в поле «cape»',
  notMultipart: 'Отправьте плащ формой multipart/form-data с файлом в поле «cape» и названием в поле «title»',
  badForm: 'Не удалось прочитать форму загрузки. Попробуйте ещё раз.',
  unknownField: 'В форме загрузки есть лишние поля: нужен файл «cape» и название «title»',
  oneFile: 'Загрузите один файл плаща',
  tooBig: 'Файл плаща слишком большой: не больше 256 КБ',
  notPng: 'Плащ должен быть PNG-изображением',
  broken: 'Файл PNG повреждён или обрезан',
  animated: 'Анимированный PNG не подходит для плаща: нужен обычный PNG',
  badSize: (w: number, h: number) =>
    `Неподходящий размер плаща: ${w}×${h}. Нужен 64×32 (HD: 128×64 … 512×256), 22×17 или 46×23 и их кратные`,
  titleRequired: 'Введите название плаща',
  titleTooLong: 'Название плаща: не длиннее 64 символов',
  notFound: 'Плащ не найден',
  grantNotFound: 'Выдача не найдена',
  playerNotFound: 'Игрок не найден',
  tierNotFound: 'Донат не найден',
  grantTarget: 'Укажите игрока (username) или донат (tier_id)',
  alreadyGranted: 'Этот плащ уже выдан',
  notAllowed: 'Этот плащ вам не выдан',
  uploaded: 'Плащ загружен',
  saved: 'Плащ выбран',
  removed: 'Плащ снят',
} as const;

export const CapeTitle = z
  .string({ error: CAPE_TEXTS.titleRequired })
  .trim()
  .min(1, CAPE_TEXTS.titleRequired)
  .max(64, CAPE_TEXTS.titleTooLong);

export const CapeGrant = z.object({
  id: z.number(),
  /** A player who may wear the cape… */
  user_id: z.number().nullable(),
  username: z.string().nullable(),
  /** …or a donate tier whose holders may. */
  tier_id: z.number().nullable(),
  tier_title: z.string().nullable(),
});
export type CapeGrant = z.infer<typeof CapeGrant>;

export const Cape = z.object({
  id: z.number(),
  title: z.string(),
  width: z.number(),
  height: z.number(),
  /** /textures/<hash of the pixels>: the same address the game loads it from. */
  url: z.string(),
});
export type Cape = z.infer<typeof Cape>;

export const AdminCape = Cape.extend({ grants: z.array(CapeGrant), created_at: z.number() });
export type AdminCape = z.infer<typeof AdminCape>;

export const CapeUpdateBody = z.strictObject({ title: CapeTitle });
export type CapeUpdateBody = z.infer<typeof CapeUpdateBody>;

export const CapeGrantBody = z.union(
  [
    z.strictObject({ username: z.string().regex(USERNAME_RE, CAPE_TEXTS.playerNotFound) }),
    z.strictObject({ tier_id: z.number({ error: CAPE_TEXTS.grantTarget }).int().positive(CAPE_TEXTS.tierNotFound) }),
  ],
  { error: CAPE_TEXTS.grantTarget },
);
export type CapeGrantBody = z.infer<typeof CapeGrantBody>;

const Id = IdParams.shape.id;
export const CapeGrantParams = z.strictObject({ id: Id, grantId: Id });

/** The capes a player may wear and the one they chose (null: none). */
export const MyCapes = z.object({ capes: z.array(Cape), selected: z.number().nullable() });
export type MyCapes = z.infer<typeof MyCapes>;

export const ChooseCapeBody = z.strictObject({ cape_id: z.number({ error: 'Выберите плащ или «Без плаща»' }).int().positive().nullable() });
export type ChooseCapeBody = z.infer<typeof ChooseCapeBody>;
