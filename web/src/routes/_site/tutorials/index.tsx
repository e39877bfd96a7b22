import { createFileRoute } from '@tanstack/react-router';
import { ContentIndex, toSummary } from '../../../components/ContentParts';
import { contentHead } from '../../../lib/content-head';

export const Route = createFileRoute('/_site/tutorials/')({
  loader: async () => {
    const content = await import('../../../lib/content');
    return { seo: content.indexSeo.tutorials, items: content.tutorials.map(toSummary) };
  },
  head: ({ loaderData }) => (loaderData ? contentHead(loaderData.seo) : {}),
  component: TutorialsIndex,
});

function TutorialsIndex() {
  const { items } = Route.useLoaderData();
  return (
    <ContentIndex
      section="tutorials"
      title="Embed your station anywhere"
      lead={
        <>
          Step-by-step guides for the platforms our listeners' websites run on. Every guide uses the
          same two lines of HTML, and every one is free.
        </>
      }
      listTestId="tutorial-list"
      items={items}
    />
  );
}
