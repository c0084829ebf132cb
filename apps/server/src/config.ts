import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseProxyTrust, type ProxyTrust } from './base/proxy-trust.ts';

const bool = z.enum(['on', 'off', 'true', 'false', '1', '0']).transform((v) => v === 'on' || v === 'true' || v === '1');
const int = (def: number, min = 0, max = 1_000_000_000) => z.coerce.number().int().min(min).max(max).default(def);

const Env = z.object({
  PORT: int(3000, 0, 65535),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().optional(),
  PUBLIC_URL: z.string().url().optional(),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().optional(),
  SITE_NAME: z.string().default('Kubik'),
  TIME_ZONE: z
    .string()
    .default('Europe/Moscow')
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'неизвестный часовой пояс (пример: Europe/Moscow)'),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, c) => {
      try {
        return parseProxyTrust(v);
      } catch (err) {
        c.addIssue({ code: 'custom', message: `${(err as Error).message} (on, число прокси или список адресов/CIDR через запятую)` });
        return z.NEVER;
      }
    }),
  /** off: a site started while its database is down exits (systemd restarts it) instead of waiting. */
  DATABASE_WAIT: bool.default(true),
  SESSION_REPLAY: bool.default(true),
  /** This instance's name across restarts: its claims of background work carry it (lib/jobs/claim-owner.ts). */
  INSTANCE_ID: z.string().trim().min(1).max(200).optional(),
  SESSION_TTL_DAYS: int(30, 1, 3650),
  LOGIN_FAILURE_DELAY_MS: int(250, 0, 5000),
  POOL_THREADS_NICE: int(10, 0, 19),
  PASSWORD_SLOTS: int(0, 0, 4),
  RATE_LIMITS: bool.default(true),
  RATE_LIMIT_WINDOW_SEC: int(900, 1),
  RATE_LIMIT_LOGIN_IP: int(30, 1),
  RATE_LIMIT_LOGIN_ACCOUNT: int(5, 1),
  RATE_LIMIT_LOGIN_NETWORK: int(100, 1),
  RATE_LIMIT_REGISTER_IP: int(10, 1),
  RATE_LIMIT_FORGOT_IP: int(10, 1),
  RATE_LIMIT_FORGOT_ACCOUNT: int(3, 1),
  RATE_LIMIT_RESET_IP: int(10, 1),
  LAUNCHER_VERSION: z.string().default('v1.0.0'),
  LAUNCHER_WINDOWS_URL: z.string().default('/downloads/KubikLauncher-1.0.0.exe'),
  LAUNCHER_LINUX_URL: z.string().default('/downloads/KubikLauncher-1.0.0.AppImage'),
  LAUNCHER_MAX_MB: int(300, 1, 4096),
  SUPPORT_VK_URL: z.string().default(''),
  SUPPORT_TELEGRAM_URL: z.string().default(''),
  SUPPORT_DISCORD_URL: z.string().default(''),
  SUPPORT_EMAIL: z.string().default(''),
  GAME_ADDRESS: z.string().default(''),
  MONITOR_INTERVAL_SEC: int(60, 1, 86_400),
  MONITOR_TIMEOUT_MS: int(3000, 100, 60_000),
  MONITOR_CONCURRENCY: int(1024, 1, 10_000),
  DELIVERY_INTERVAL_SEC: int(5, 1, 3600),
  PRIVILEGES_INTERVAL_SEC: int(60, 1, 86_400),
  RCON_TIMEOUT_MS: int(5000, 100, 60_000),
  WEB_DIST: z.string().optional(),
  GRAVIT_SECRET: z.string().min(16, 'не короче 16 символов').optional(),
  SHUTDOWN_TIMEOUT_SEC: int(10, 1, 600),
  YOOKASSA_SHOP_ID: z.string().optional(),
  YOOKASSA_SECRET_KEY: z.string().optional(),
  YOOKASSA_API_URL: z.string().url().default('https://api.yookassa.ru/v3'),
  YOOKASSA_RECEIPTS: bool.default(false),
  YOOKASSA_NOTIFY_IPS: z
    .string()
    .default('185.71.76.0/27,185.71.77.0/27,77.75.153.0/25,77.75.156.11,77.75.156.35,77.75.154.128/25,2a02:5180::/32'),
  TBANK_TERMINAL_KEY: z.string().optional(),
  TBANK_PASSWORD: z.string().optional(),
  TBANK_API_URL: z.string().url().default('https://securepay.tinkoff.ru/v2'),
  /** 54-ФЗ receipts through T-Bank's online cash register (Receipt in Init, SendClosingReceipt). */
  TBANK_RECEIPTS: bool.default(false),
  YOOMONEY_WALLET: z.string().optional(),
  YOOMONEY_NOTIFICATION_SECRET: z.string().optional(),
  YOOMONEY_OAUTH_TOKEN: z.string().optional(),
  YOOMONEY_FORM_URL: z.string().url().default('https://yoomoney.ru/quickpay/confirm'),
  YOOMONEY_API_URL: z.string().url().default('https://yoomoney.ru/api'),
  FREEKASSA_MERCHANT_ID: z.string().optional(),
  FREEKASSA_SECRET1: z.string().optional(),
  FREEKASSA_SECRET2: z.string().optional(),
  FREEKASSA_API_KEY: z.string().optional(),
  FREEKASSA_FORM_URL: z.string().url().default('https://pay.freekassa.com/'),
  FREEKASSA_API_URL: z.string().url().default('https://api.freekassa.com/v1'),
  FREEKASSA_NOTIFY_IPS: z.string().default('168.119.157.136,168.119.60.227,178.154.197.79,51.250.54.238'),
  PAYMENT_MAX_PENDING: int(5, 1, 1000),
  PAYMENT_NOTIFY_PER_IP: int(300, 1, 1_000_000),
  VK_CLIENT_ID: z.string().optional(),
  VK_CLIENT_SECRET: z.string().optional(),
  VK_ID_URL: z.string().url().default('https://id.vk.com'),
  TELEGRAM_BOT_TOKEN: z.string().optional(),
  TELEGRAM_BOT_NAME: z.string().optional(),
  TELEGRAM_OAUTH_URL: z.string().url().default('https://oauth.telegram.org'),
  DISCORD_CLIENT_ID: z.string().optional(),
  DISCORD_CLIENT_SECRET: z.string().optional(),
  DISCORD_URL: z.string().url().default('https://discord.com'),
  TELEGRAM_API_URL: z.string().url().default('https://api.telegram.org'),
  VK_API_URL: z.string().url().default('https://api.vk.com'),
  SECRETS_KEY: z.string().min(32, 'не короче 32 символов').optional(),
  PAYMENT_MIN_RUB: z.coerce.number().min(1).max(1_000_000).default(10),
  PAYMENT_MAX_RUB: z.coerce.number().min(1).max(10_000_000).default(100_000),
  PAYMENT_RECONCILE_SEC: int(300, 10, 86_400),
  BACKUP_DIR: z.string().optional(),
  BACKUP_KEEP: int(7, 1, 10_000),
  BACKUP_INTERVAL_HOURS: int(24, 1, 24 * 365),
  METRICS_TOKEN: z.string().min(16, 'не короче 16 символов').optional(),
  TWO_FACTOR_KEY: z.string().min(32, 'не короче 32 символов').optional(),
  AUTHME_DATABASE_URL: z.string().optional(),
  AUTHME_TABLE: z.string().optional(),
  AUTHME_HASH: z.string().optional(),
  LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://… selects PostgreSQL; otherwise SQLite at sqlitePath. */
  databaseUrl: string | undefined;
  sqlitePath: string;
  publicUrl: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  siteName: string;
  /** IANA time zone the admin's days are counted in (the dashboard's «by day»). */
  timeZone: string;
  /** Which forwarding proxies are believed (base/proxy-trust.ts); tests may pass true (one hop). */
  trustProxy: ProxyTrust | boolean;
  /** Wait for a database that is down at start (true), or exit with one line (false). */
  databaseWait: boolean;
  /** Answer a signed-in player's own /me and head again from memory while nothing changed (front-door/memory.ts). */
  sessionReplay: boolean;
  /**
   * This instance's name, the same across its restarts (INSTANCE_ID; by default the host's name and
   * the port): a restarted instance takes back at once the claims its previous life held.
   */
  instanceId: string;
  secureCookies: boolean;
  sessionTtlMs: number;
  /** A failed login (unknown name, wrong password or code) is answered no sooner than this after it began (front-door/passwords.ts). */
  loginFailureDelayMs: number;
  /** lib/pool-threads.ts: the nice of libuv's pool threads (password hashes); 0 leaves them as they are. */
  poolThreadsNice: number;
  /** front-door/passwords.ts: password checks run at once by this process; 0 = one per core (at most four). */
  passwordSlots: number;
  rateLimits: {
    enabled: boolean;
    windowMs: number;
    loginPerIp: number;
    /** Failed logins of one account (from unknown devices) before each try waits a growing delay. */
    loginPerAccount: number;
    /** Strangers' failed logins from one network (IPv4 /24, IPv6 /64) in a window, web and launchers together. */
    loginFailuresPerNetwork: number;
    registerPerIp: number;
    forgotPerIp: number;
    forgotPerAccount: number;
    /** Tries of a password-reset link per IP in a window. */
    resetPerIp: number;
  };
  /** The launcher links' defaults (Настройки), and the size limit of a build uploaded in Админ-панель → Лаунчер. */
  launcher: { version: string; windowsUrl: string; linuxUrl: string; maxBytes: number };
  support: { vk: string; telegram: string; discord: string; email: string };
  /** The game server's address the home page shows (the owner may change it in Настройки). */
  gameAddress: string;
  /** Server status checks (Minecraft Server List Ping). */
  monitor: { intervalMs: number; timeoutMs: number; concurrency: number };
  /** Shop deliveries over RCON. */
  delivery: { intervalMs: number; timeoutMs: number };
  /** How often privileges whose time ran out are ended (once across all instances). */
  privileges: { intervalMs: number };
  webDist: string;
  /** Bearer secret of GravitLauncher's LaunchServer; its HTTP auth endpoints are off without it. */
  gravitSecret: string | undefined;
  logLevel: string;
  /** Background workers (mail, monitors, deliveries); tests may switch them off. */
  workers: boolean;
  /** The site's own periodic backups (lib/backup.ts): off unless BACKUP_DIR is set. */
  backup: { dir: string | undefined; keep: number; intervalMs: number };
  /** On SIGTERM/SIGINT: how long in-flight requests, then background jobs, may take to finish. */
  shutdownTimeoutMs: number;
  /** Balance top-up; a provider is on when its credentials are set. */
  payments: PaymentsConfig;
  /** When set, /metrics answers any caller with `Authorization: Bearer <token>`; otherwise only loopback callers. */
  metricsToken: string | undefined;
  /** Seals payment keys set in the admin (lib/secret-box.ts); without it DATA_DIR/secrets.key is made and used. */
  secretsKey: string | undefined;
  /** Seals authenticator secrets in the database (AES-256-GCM); without it they are stored as they are (never shown again after enabling). */
  twoFactorKey: string | undefined;
  /** Social login (modules/social): environment defaults of the keys the owner may set in the admin; base URLs of the providers. */
  social: SocialConfig;
  /** 'pretty': one readable line per entry (default when stdout is a terminal); 'json': one JSON object per line. */
  logFormat: 'pretty' | 'json';
  /** AuthMe's database (modules/authme): the environment's defaults under what the owner sets in the admin. */
  authme: { databaseUrl: string | undefined; table: string | undefined; hash: string | undefined };
  /** Announcements (modules/announce): the providers' base addresses (DISCORD_URL, TELEGRAM_API_URL, VK_API_URL). */
  announce: { discordUrl: string; telegramApiUrl: string; vkApiUrl: string };
}

export interface SocialConfig {
  vk: { clientId: string; clientSecret: string; baseUrl: string };
  telegram: { botToken: string; botName: string; baseUrl: string };
  discord: { clientId: string; clientSecret: string; baseUrl: string };
}

export interface PaymentsConfig {
  yookassa: { shopId: string; secretKey: string; apiUrl: string; receipts: boolean; notifyIps: string[] } | null;
  tbank: { terminalKey: string; password: string; apiUrl: string; receipts?: boolean } | null;
  /** ЮMoney wallet (quickpay form + HTTP notifications); set in the admin or by YOOMONEY_* variables. */
  yoomoney?: { wallet: string; notificationSecret: string; oauthToken?: string; formUrl: string; apiUrl: string } | null;
  /** FreeKassa SCI (form + notifications signed with secret word 2; API key for re-reading orders). */
  freekassa?: {
    merchantId: string;
    secret1: string;
    secret2: string;
    apiKey?: string;
    formUrl: string;
    apiUrl: string;
    notifyIps: string[];
  } | null;
  /** Unpaid payments a player may have waiting at once (PAYMENT_MAX_PENDING). */
  maxPending?: number;
  /** Provider notifications one address may send per rate-limit window (PAYMENT_NOTIFY_PER_IP). */
  notifyPerIp?: number;
  /** Environment defaults the admin's settings fall back to, also for providers without full credentials. */
  defaults?: { yookassaNotifyIps: string[]; freekassaNotifyIps: string[]; urls: Record<string, string> };
  /** Kopecks. */
  minKopecks: number;
  maxKopecks: number;
  reconcileMs: number;
}

export type ConfigOverrides = Partial<Omit<Config, 'rateLimits'>> & { rateLimits?: Partial<Config['rateLimits']> };

const repoRoot = path.resolve(import.meta.dirname, '../../..');

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: ConfigOverrides = {}): Readonly<Config> {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const port = overrides.port ?? e.PORT;
  const publicUrl = (overrides.publicUrl ?? e.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const dataDir = path.resolve(overrides.dataDir ?? e.DATA_DIR);
  const databaseUrl = overrides.databaseUrl ?? (e.DATABASE_URL || undefined);
  const config: Config = {
    port,
    host: e.HOST,
    dataDir,
    databaseUrl,
    sqlitePath: path.join(dataDir, 'kubik.sqlite'),
    publicUrl,
    smtpUrl: e.SMTP_URL || undefined,
    mailFrom: e.MAIL_FROM ?? `${e.SITE_NAME} <no-reply@${new URL(publicUrl).hostname}>`,
    siteName: e.SITE_NAME,
    timeZone: e.TIME_ZONE,
    trustProxy: e.TRUST_PROXY,
    databaseWait: e.DATABASE_WAIT,
    sessionReplay: e.SESSION_REPLAY,
    instanceId: e.INSTANCE_ID ?? `${os.hostname()}:${port}`,
    secureCookies: publicUrl.startsWith('https://'),
    sessionTtlMs: e.SESSION_TTL_DAYS * 86_400_000,
    loginFailureDelayMs: e.LOGIN_FAILURE_DELAY_MS,
    poolThreadsNice: e.POOL_THREADS_NICE,
    passwordSlots: e.PASSWORD_SLOTS,
    launcher: {
      version: e.LAUNCHER_VERSION,
      windowsUrl: e.LAUNCHER_WINDOWS_URL,
      linuxUrl: e.LAUNCHER_LINUX_URL,
      maxBytes: e.LAUNCHER_MAX_MB * 1024 * 1024,
    },
    support: { vk: e.SUPPORT_VK_URL, telegram: e.SUPPORT_TELEGRAM_URL, discord: e.SUPPORT_DISCORD_URL, email: e.SUPPORT_EMAIL },
    gameAddress: e.GAME_ADDRESS,
    monitor: { intervalMs: e.MONITOR_INTERVAL_SEC * 1000, timeoutMs: e.MONITOR_TIMEOUT_MS, concurrency: e.MONITOR_CONCURRENCY },
    delivery: { intervalMs: e.DELIVERY_INTERVAL_SEC * 1000, timeoutMs: e.RCON_TIMEOUT_MS },
    privileges: { intervalMs: e.PRIVILEGES_INTERVAL_SEC * 1000 },
    webDist: path.resolve(e.WEB_DIST ?? path.join(repoRoot, 'apps/web/dist')),
    gravitSecret: e.GRAVIT_SECRET || undefined,
    logLevel: e.LOG_LEVEL,
    workers: true,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_SEC * 1000,
    payments: {
      yookassa:
        e.YOOKASSA_SHOP_ID && e.YOOKASSA_SECRET_KEY
          ? {
              shopId: e.YOOKASSA_SHOP_ID,
              secretKey: e.YOOKASSA_SECRET_KEY,
              apiUrl: e.YOOKASSA_API_URL.replace(/\/+$/, ''),
              receipts: e.YOOKASSA_RECEIPTS,
              notifyIps: e.YOOKASSA_NOTIFY_IPS.split(',')
                .map((s) => s.trim())
                .filter(Boolean),
            }
          : null,
      tbank:
        e.TBANK_TERMINAL_KEY && e.TBANK_PASSWORD
          ? {
              terminalKey: e.TBANK_TERMINAL_KEY,
              password: e.TBANK_PASSWORD,
              apiUrl: e.TBANK_API_URL.replace(/\/+$/, ''),
              receipts: e.TBANK_RECEIPTS,
            }
          : null,
      yoomoney:
        e.YOOMONEY_WALLET && e.YOOMONEY_NOTIFICATION_SECRET
          ? {
              wallet: e.YOOMONEY_WALLET,
              notificationSecret: e.YOOMONEY_NOTIFICATION_SECRET,
              oauthToken: e.YOOMONEY_OAUTH_TOKEN || undefined,
              formUrl: e.YOOMONEY_FORM_URL,
              apiUrl: e.YOOMONEY_API_URL.replace(/\/+$/, ''),
            }
          : null,
      freekassa:
        e.FREEKASSA_MERCHANT_ID && e.FREEKASSA_SECRET1 && e.FREEKASSA_SECRET2
          ? {
              merchantId: e.FREEKASSA_MERCHANT_ID,
              secret1: e.FREEKASSA_SECRET1,
              secret2: e.FREEKASSA_SECRET2,
              apiKey: e.FREEKASSA_API_KEY || undefined,
              formUrl: e.FREEKASSA_FORM_URL,
              apiUrl: e.FREEKASSA_API_URL.replace(/\/+$/, ''),
              notifyIps: splitList(e.FREEKASSA_NOTIFY_IPS),
            }
          : null,
      maxPending: e.PAYMENT_MAX_PENDING,
      notifyPerIp: e.PAYMENT_NOTIFY_PER_IP,
      defaults: {
        yookassaNotifyIps: splitList(e.YOOKASSA_NOTIFY_IPS),
        freekassaNotifyIps: splitList(e.FREEKASSA_NOTIFY_IPS),
        urls: {
          'yookassa.api_url': e.YOOKASSA_API_URL.replace(/\/+$/, ''),
          'tbank.api_url': e.TBANK_API_URL.replace(/\/+$/, ''),
          'yoomoney.form_url': e.YOOMONEY_FORM_URL,
          'yoomoney.api_url': e.YOOMONEY_API_URL.replace(/\/+$/, ''),
          'freekassa.form_url': e.FREEKASSA_FORM_URL,
          'freekassa.api_url': e.FREEKASSA_API_URL.replace(/\/+$/, ''),
        },
      },
      minKopecks: Math.round(e.PAYMENT_MIN_RUB * 100),
      maxKopecks: Math.round(e.PAYMENT_MAX_RUB * 100),
      reconcileMs: e.PAYMENT_RECONCILE_SEC * 1000,
    },
    backup: {
      dir: e.BACKUP_DIR ? path.resolve(e.BACKUP_DIR) : undefined,
      keep: e.BACKUP_KEEP,
      intervalMs: e.BACKUP_INTERVAL_HOURS * 3_600_000,
    },
    metricsToken: e.METRICS_TOKEN || undefined,
    twoFactorKey: e.TWO_FACTOR_KEY || undefined,
    secretsKey: e.SECRETS_KEY || undefined,
    social: {
      vk: { clientId: e.VK_CLIENT_ID ?? '', clientSecret: e.VK_CLIENT_SECRET ?? '', baseUrl: e.VK_ID_URL.replace(/\/+$/, '') },
      telegram: {
        botToken: e.TELEGRAM_BOT_TOKEN ?? '',
        botName: e.TELEGRAM_BOT_NAME ?? '',
        baseUrl: e.TELEGRAM_OAUTH_URL.replace(/\/+$/, ''),
      },
      discord: {
        clientId: e.DISCORD_CLIENT_ID ?? '',
        clientSecret: e.DISCORD_CLIENT_SECRET ?? '',
        baseUrl: e.DISCORD_URL.replace(/\/+$/, ''),
      },
    },
    logFormat: e.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    announce: {
      discordUrl: e.DISCORD_URL.replace(/\/+$/, ''),
      telegramApiUrl: e.TELEGRAM_API_URL.replace(/\/+$/, ''),
      vkApiUrl: e.VK_API_URL.replace(/\/+$/, ''),
    },
    authme: {
      databaseUrl: e.AUTHME_DATABASE_URL?.trim() || undefined,
      table: e.AUTHME_TABLE?.trim() || undefined,
      hash: e.AUTHME_HASH?.trim() || undefined,
    },
    ...overrides,
    rateLimits: {
      enabled: e.RATE_LIMITS,
      windowMs: e.RATE_LIMIT_WINDOW_SEC * 1000,
      loginPerIp: e.RATE_LIMIT_LOGIN_IP,
      loginPerAccount: e.RATE_LIMIT_LOGIN_ACCOUNT,
      loginFailuresPerNetwork: e.RATE_LIMIT_LOGIN_NETWORK,
      registerPerIp: e.RATE_LIMIT_REGISTER_IP,
      forgotPerIp: e.RATE_LIMIT_FORGOT_IP,
      forgotPerAccount: e.RATE_LIMIT_FORGOT_ACCOUNT,
      resetPerIp: e.RATE_LIMIT_RESET_IP,
      ...overrides.rateLimits,
    },
  };
  return Object.freeze(config);
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
