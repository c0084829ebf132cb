import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type Rollup, type UserConfig } from 'vite';
import { EVERY_PAGE_READS, PAGE_READS } from './src/app/first-reads.ts';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/**
 * Writes `file.br` and `file.gz` beside every text file of the build, once at build time at the
 * highest levels, so the server can send them as they are (@fastify/static `preCompressed`)
 * instead of compressing on every request or not at all.
 */
function precompress(): Plugin {
  let outDir = '';
  const TEXT = /\.(js|css|html|svg|json|txt|xml|webmanifest)$/;
  async function* files(dir: string): AsyncGenerator<string> {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) yield* files(full);
      else if (TEXT.test(entry.name)) yield full;
    }
  }
  return {
    name: 'kubik:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const jobs: Promise<void>[] = [];
      for await (const file of files(outDir)) {
        jobs.push(
          (async () => {
            if ((await stat(file)).size < 1024) return;
            const body = await readFile(file);
            const [br, gzipped] = await Promise.all([
              brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
              gz(body, { level: 9 }),
            ]);
            // Only worth sending when it is clearly smaller.
            if (br.length < body.length * 0.9) await writeFile(`${file}.br`, br);
            if (gzipped.length < body.length * 0.9) await writeFile(`${file}.gz`, gzipped);
          })(),
        );
      }
      await Promise.all(jobs);
    },
  };
}

/**
 * Preloads the four Golos Text files every page uses (Cyrillic and Latin, regular and bold):
 * without it the browser asks for them only after the app has rendered its first text, and the
 * text then jumps when the fallback font is swapped for them.
 */
function preloadFonts(): Plugin {
  const FONT = /golos-text-(cyrillic|latin)-(400|700)-normal-[\w-]+\.woff2$/;
  return {
    name: 'kubik:preload-fonts',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const fonts = Object.keys(ctx.bundle ?? {})
          .filter((name) => FONT.test(name))
          .sort();
        if (fonts.length !== 4) throw new Error(`expected 4 Golos Text fonts to preload, found ${fonts.length}`);
        return fonts.map((name) => ({
          tag: 'link',
          attrs: { rel: 'preload', href: `/${name}`, as: 'font', type: 'font/woff2', crossorigin: '' },
          injectTo: 'head' as const,
        }));
      },
    },
  };
}

/**
 * The pages that are chunks of their own and often the first a visitor opens: boot.ts fetches
 * their code and styles (with their data, where it asks for it early) at once, not after the app
 * has started and asked for them.
 */
const EARLY_PAGES: Record<string, string[]> = {
  // The home page is in the app's chunk; the server list and the showcase on it are not.
  '/': ['src/features/servers/HomeServerCards.tsx', 'src/features/players/HomeShowcase.tsx'],
  '/servers': ['src/features/servers/ServersPage.tsx'],
  '/donate': ['src/features/donate/DonatePage.tsx'],
  '/rules': ['src/features/pages/RulesPage.tsx'],
  '/help': ['src/app/pages/HelpPage.tsx'],
  // The account forms share one chunk; with the form kit and the contract's schemas it is the
  // heaviest first page, and waiting for the app to ask for it cost /login half a second of
  // Lighthouse's slow 4G.
  '/login': ['src/features/accounts/AuthPages.ts'],
  '/register': ['src/features/accounts/AuthPages.ts'],
  '/forgot-password': ['src/features/accounts/AuthPages.ts'],
};

/** A chunk and every chunk it imports statically, directly or through others. */
function staticImports(fileName: string, chunks: Rollup.OutputChunk[]): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const f of chunks.find((c) => c.fileName === name)?.imports ?? []) visit(f);
  };
  visit(fileName);
  return [...seen];
}

/**
 * src/boot.ts as a script of its own, the first in the page: Vite would otherwise bundle every
 * module script of index.html into one entry, and boot.ts would wait for the whole app to arrive.
 * The files of EARLY_PAGES go into its data-page-files (index.html is never cached, the scripts
 * are cached for good, so the names cannot go stale).
 */
function bootScript(): Plugin {
  let root = '';
  return {
    name: 'kubik:boot-script',
    apply: 'build',
    configResolved(config) {
      root = config.root;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const chunks = Object.values(ctx.bundle ?? {}).filter((c) => c.type === 'chunk');
        const boot = chunks.find((c) => c.isEntry && c.name === 'boot');
        const entry = chunks.find((c) => c.isEntry && c.name === 'index');
        if (!boot || !entry || !html.includes('</title>'))
          throw new Error('the boot or app chunk, or the <title> to put boot after, is missing');
        const appFiles = new Set(staticImports(entry.fileName, chunks));
        const pageFiles: Record<string, string[]> = {};
        for (const [page, modules] of Object.entries(EARLY_PAGES)) {
          const js = new Set<string>();
          for (const module of modules) {
            const chunk = chunks.find((c) => c.facadeModuleId === path.resolve(root, module));
            if (!chunk) throw new Error(`no chunk of its own for ${module}`);
            // The page's chunk, the chunks it imports (and they in turn: a modulepreload does not
            // fetch a module's imports) that the app does not load anyway, and the CSS of all of them.
            for (const f of staticImports(chunk.fileName, chunks)) if (!appFiles.has(f)) js.add(f);
          }
          const css = [...js].flatMap((f) => [...(chunks.find((c) => c.fileName === f)?.viteMetadata?.importedCss ?? [])]);
          pageFiles[page] = [...js, ...new Set(css)].map((f) => `/${f}`);
        }
        // The app's script and the chunks it imports, for boot.ts to fetch itself on a page the
        // server drew (where the server takes the app's <script> and preloads out of the page).
        const app = [entry.fileName, ...[...appFiles].filter((f) => f !== entry.fileName)].map((f) => `/${f}`);
        // The paths of app/first-reads.ts ride along in the page, not as a chunk boot.ts would wait for.
        const reads = { every: EVERY_PAGE_READS, pages: PAGE_READS };
        // Before the app's script: module scripts run in document order, and this one is tiny.
        return html.replace(
          '</title>',
          `</title>\n    <script type="module" crossorigin src="/${boot.fileName}" data-reads='${JSON.stringify(reads)}' data-page-files='${JSON.stringify(pageFiles)}' data-app='${JSON.stringify(app)}'></script>`,
        );
      },
    },
  };
}

/**
 * src/entry-server.tsx for the server (`vite build --ssr`): one ES module in dist/ssr/ with every
 * package inside, so the server needs nothing from the web app's node_modules at run time.
 */
const ssrBuild: UserConfig = {
  plugins: [react()],
  // React picks its production build by this, whatever the server's own environment says.
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  ssr: { noExternal: true, target: 'node' },
  build: {
    ssr: 'src/entry-server.tsx',
    outDir: 'dist/ssr',
    emptyOutDir: false,
    copyPublicDir: false,
    target: 'node20',
    sourcemap: false,
    // Less source text for the server to hold in memory.
    minify: true,
    rolldownOptions: { output: { entryFileNames: 'entry-server.js' } },
  },
};

export default defineConfig(({ isSsrBuild }) =>
  isSsrBuild
    ? ssrBuild
    : {
        plugins: [react(), bootScript(), preloadFonts(), precompress()],
        server: { proxy: { '/api': 'http://localhost:3000' } },
        build: {
          target: 'es2022',
          sourcemap: false,
          chunkSizeWarningLimit: 700,
          rolldownOptions: {
            input: { index: path.resolve(import.meta.dirname, 'index.html'), boot: path.resolve(import.meta.dirname, 'src/boot.ts') },
            output: {
              codeSplitting: {
                groups: [
                  // The contract's files without zod, a few hundred bytes each, that pages
                  // share with the schemas: one chunk, not one each, for every chunk's name is
                  // listed in the first page's script.
                  {
                    name: 'contract-plain',
                    test: /packages[\\/]contract[\\/]src[\\/](password-strength|social-providers|media-limits)\.ts$/,
                  },
                ],
              },
            },
          },
        },
      },
);
