import { fileURLToPath } from 'node:url';
import { type Plugin, defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import { buildContent, writeContent } from '../content/build.mjs';

const API = process.env.RB_API_ORIGIN ?? 'http://127.0.0.1:3000';
const lib = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Paths the API answers itself; in development Vite forwards them to it. Keys starting with ^ are
 * regular expressions, so a username such as `pressman` still reaches the app.
 */
const proxied = [
  '^/api/',
  '^/whip/',
  '^/whep/',
  '^/health',
  '^/player\\.m?js',
  '^/(sitemap\\.xml|robots\\.txt|feed\\.xml|blog/rss\\.xml)$',
  '^/(app-store|appstore|review|press|discord)/?(\\?.*)?$',
];

/**
 * `virtual:rb-content`: the blog and tutorials compiled by content/build.mjs. The build also writes
 * content/dist/content.json for the API (sitemap, feed, server-side meta); a bad frontmatter fails it.
 */
function content(): Plugin {
  const id = 'virtual:rb-content';
  const resolved = `\0${id}`;
  // Small facts for pages that do not need the whole content (home, /embed).
  const factsId = 'virtual:rb-content-facts';
  const factsResolved = `\0${factsId}`;
  const dir = lib('../content');
  const compile = () => {
    const collections = buildContent();
    writeContent(collections);
    return collections;
  };
  return {
    name: 'rb-content',
    buildStart() {
      compile();
    },
    resolveId: (source) =>
      source === id ? resolved : source === factsId ? factsResolved : undefined,
    load(moduleId) {
      if (moduleId === resolved) return `export default ${JSON.stringify(compile())};`;
      if (moduleId !== factsResolved) return undefined;
      const c = compile();
      const pick = (e: { slug: string; title: string; summary: string; path: string }) => ({
        slug: e.slug,
        title: e.title,
        summary: e.summary,
        path: e.path,
      });
      return [
        `export const playerSize = ${JSON.stringify(c.player.sizeText)};`,
        `export const tutorials = ${JSON.stringify(c.tutorials.map((t) => ({ ...pick(t), platform: t.platform })))};`,
        `export const posts = ${JSON.stringify(c.blog.map(pick))};`,
      ].join('\n');
    },
    configureServer(server) {
      server.watcher.add(dir);
      server.watcher.on('change', (file) => {
        if (!file.startsWith(dir) || !file.endsWith('.md')) return;
        for (const m of [resolved, factsResolved]) {
          const mod = server.moduleGraph.getModuleById(m);
          if (mod) server.moduleGraph.invalidateModule(mod);
        }
        server.ws.send({ type: 'full-reload' });
      });
    },
  };
}

export default defineConfig({
  plugins: [
    content(),
    // The router plugin must come before react().
    tanstackRouter({ target: 'react', autoCodeSplitting: true }),
    react(),
  ],
  resolve: {
    alias: {
      // Before the package's own entry: aliases match by prefix, in order.
      '@radiobroadcaster/contracts/whip-client': lib('../libs/contracts/src/whip-client.ts'),
      '@radiobroadcaster/contracts': lib('../libs/contracts/src/index.ts'),
      '@radiobroadcaster/player/register': lib('../libs/player/src/register.ts'),
      '@radiobroadcaster/player': lib('../libs/player/src/index.ts'),
    },
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    proxy: {
      ...Object.fromEntries(proxied.map((p) => [p, { target: API, changeOrigin: false }])),
      '^/socket\\.io/': { target: API, ws: true, changeOrigin: false },
    },
  },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
});
