import { z } from 'zod';

// The Yggdrasil API's JSON, exactly as authlib-injector's server specification writes it. These
// are a game protocol's shapes, not the site's: they live here, not in the shared contract.

export const YggError = z.object({ error: z.string(), errorMessage: z.string() });

export const SimpleProfile = z.object({ id: z.string(), name: z.string() });
export const Property = z.object({ name: z.string(), value: z.string(), signature: z.string().optional() });
export const CompleteProfile = z.object({ id: z.string(), name: z.string(), properties: z.array(Property) });
export const YggUser = z.object({ id: z.string(), properties: z.array(z.object({ name: z.string(), value: z.string() })) });

const text = (max: number) => z.string().max(max);
const secret = z.string().min(1).max(512);
/** Any string a launcher chose, echoed byte for byte; some send null when they have none. */
const clientToken = text(255).nullish();

// Launchers add keys of their own (agent, requestUser, …): bodies are not strict.
export const AuthenticateBody = z.object({
  username: z.string().min(1).max(254),
  password: z.string().min(1).max(1024),
  clientToken,
  requestUser: z.boolean().nullish(),
  agent: z.object({ name: text(64), version: z.number() }).nullish(),
});
export const RefreshBody = z.object({
  accessToken: secret,
  clientToken,
  requestUser: z.boolean().nullish(),
  selectedProfile: z.object({ id: text(64), name: text(64) }).nullish(),
});
export const TokenBody = z.object({ accessToken: secret, clientToken });
export const SignoutBody = z.object({ username: z.string().min(1).max(254), password: z.string().min(1).max(1024) });
/** An opaque string to the site; in practice Minecraft's hex digest (may start with '-'). */
const serverId = z.string().regex(/^[\x21-\x7e]{1,128}$/, 'serverId');
export const JoinBody = z.object({ accessToken: secret, selectedProfile: text(64), serverId });
export const HasJoinedQuery = z.object({
  username: z.string().min(1).max(64),
  serverId,
  ip: z
    .string()
    .regex(/^[0-9A-Fa-f:.]{1,64}$/, 'ip')
    .optional(),
});
export const ProfileParams = z.object({
  uuid: z.string().regex(/^[0-9a-fA-F]{32}$|^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'uuid'),
});
export const ProfileQuery = z.object({ unsigned: text(8).optional() });
export const NamesBody = z.array(z.string().max(64));

export const AuthenticateResponse = z.object({
  accessToken: z.string(),
  clientToken: z.string(),
  availableProfiles: z.array(SimpleProfile),
  selectedProfile: SimpleProfile.optional(),
  user: YggUser.optional(),
});
export const RefreshResponse = z.object({
  accessToken: z.string(),
  clientToken: z.string(),
  selectedProfile: SimpleProfile.optional(),
  user: YggUser.optional(),
});

export const Metadata = z.object({
  meta: z.object({
    serverName: z.string(),
    implementationName: z.string(),
    implementationVersion: z.string(),
    links: z.object({ homepage: z.string(), register: z.string() }),
    'feature.non_email_login': z.boolean(),
    'feature.enable_profile_key': z.boolean(),
  }),
  skinDomains: z.array(z.string()),
  signaturePublickey: z.string(),
});

export const NoContent = z.null().meta({ description: 'Пустой ответ (204)' });
