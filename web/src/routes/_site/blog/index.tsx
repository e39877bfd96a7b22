import { createFileRoute } from '@tanstack/react-router';
import { Breadcrumbs, ContentCard, toSummary } from '../../../components/ContentParts';
import { contentHead } from '../../../lib/content-head';

export const Route = createFileRoute('/_site/blog/')({
  loader: async () => {
    const content = await import('../../../lib/content');
    return { seo: content.indexSeo.blog, items: content.posts.map(toSummary) };
  },
  head: ({ loaderData }) => (loaderData ? contentHead(loaderData.seo) : {}),
  component: BlogIndex,
});

function BlogIndex() {
  const { items } = Route.useLoaderData();
  return (
    <div className="container page">
      <Breadcrumbs section="blog" />
      <p className="eyebrow">Blog</p>
      <h1 data-testid="page-title">News and notes</h1>
      <p className="lead">
        What we are building, and how it works. Follow along with the{' '}
        <a href="/blog/rss.xml">RSS feed</a>.
      </p>
      <ul className="content-grid" data-testid="post-list">
        {items.map((p) => (
          <li key={p.slug}>
            <ContentCard item={p} kind="blog" />
          </li>
        ))}
      </ul>
    </div>
  );
}
