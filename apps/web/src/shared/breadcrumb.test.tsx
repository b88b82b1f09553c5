import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { Breadcrumb } from './breadcrumb.tsx';

describe('Breadcrumb', () => {
  it('links each step up and marks where the reader is', () => {
    const html = renderToStaticMarkup(
      <MemoryRouter>
        <Breadcrumb
          trail={[
            { label: 'Library', to: '/' },
            { label: 'Reef recovery', to: '/documents/doc_1' },
          ]}
          current="Memory"
        />
      </MemoryRouter>,
    );
    expect(html).toBe(
      '<nav class="breadcrumb" aria-label="Breadcrumb"><ol>' +
        '<li><a href="/" data-discover="true">Library</a></li>' +
        '<li><a href="/documents/doc_1" data-discover="true">Reef recovery</a></li>' +
        '<li><span aria-current="page">Memory</span></li>' +
        '</ol></nav>',
    );
  });
});
