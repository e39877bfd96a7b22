import { createFileRoute } from '@tanstack/react-router';
import { ContentIndex, toSummary } from '../../../components/ContentParts';
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
    <ContentIndex
      section="blog"
      title="News and notes"
      lead={
        <>
          What we are building, and how it works. Follow along with the{' '}
          <a href="/blog/rss.xml">RSS feed</a>.
        </>
      }
      listTestId="post-list"
      items={items}
    />
  );
}
