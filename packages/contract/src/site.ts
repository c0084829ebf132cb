import { z } from 'zod';

export const SiteInfo = z.object({
  name: z.string(),
  launcher: z.object({ version: z.string(), windows_url: z.string(), linux_url: z.string() }),
  support: z.object({ vk: z.string(), telegram: z.string(), discord: z.string() }),
});
export type SiteInfo = z.infer<typeof SiteInfo>;
