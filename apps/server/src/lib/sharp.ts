import type * as SharpModule from 'sharp';

/** sharp (libvips, ~30 MB resident) loads with the first image handled, not when the site starts. */
let sharpLoading: Promise<typeof SharpModule> | undefined;
export const loadSharp = async (): Promise<typeof SharpModule.default> => (await (sharpLoading ??= import('sharp'))).default;
