import { expect } from 'chai';
import { htmlToMarkdown } from '../../../src/content/markdown/html-to-markdown.js';

function main(body: string): string {
  return htmlToMarkdown({ html: `<html><body>${body}</body></html>`, baseUrl: 'https://example.com/', onlyMainContent: true });
}

function all(body: string): string {
  return htmlToMarkdown({ html: `<html><body>${body}</body></html>`, baseUrl: 'https://example.com/', onlyMainContent: false });
}

const CHROME = '<header>Site header</header><nav>Menu</nav><aside>Related</aside><footer>Copyright</footer>';

describe('only_main_content: which element is kept', () => {
  it('keeps <main> and nothing around it', () => {
    expect(main(`${CHROME}<main><p>Story</p></main><p>after main</p>`)).to.equal('Story');
  });

  it('takes the first <main> without the hidden attribute', () => {
    expect(main('<main hidden><p>old view</p></main><main><p>current view</p></main>')).to.equal('current view');
  });

  it('keeps the element with role="main" when there is no <main>', () => {
    expect(main(`${CHROME}<div role="main"><p>Story</p></div><p>outside</p>`)).to.equal('Story');
  });

  it('keeps the one top-level <article>, comments nested in it included', () => {
    expect(main(`${CHROME}<article><p>Story</p><article><p>A comment</p></article></article><p>outside</p>`)).to.equal('Story\n\nA comment');
  });

  it('keeps the whole body of a page with several articles, without its chrome', () => {
    expect(main(`${CHROME}<article><h2>One</h2></article><article><h2>Two</h2></article>`)).to.equal('## One\n\n## Two');
  });

  it('falls back to the body when <main> has no text and no image', () => {
    expect(main('<main><div id="app"></div></main><p>server-rendered text</p>')).to.equal('server-rendered text');
  });

  it('keeps the space between the text on either side of a dropped container', () => {
    expect(main('<main><p><span><b>$5</b> <div class="promo">ad</div>today</span></p></main>')).to.equal('**$5** today');
  });

  it('changes nothing when only_main_content is false', () => {
    expect(all(`<nav>Menu</nav><main><p>Story</p></main><footer>Copyright</footer>`)).to.equal('Menu\n\nStory\n\nCopyright');
  });
});

describe('only_main_content: what is dropped', () => {
  it('drops <nav>, <dialog>, and <header>, <footer>, <aside> outside the article', () => {
    expect(main(`${CHROME}<dialog open>Sign up!</dialog><p>Story</p>`)).to.equal('Story');
  });

  it("keeps an article's own header and footer, and an <aside> inside an article", () => {
    const html = '<main><article><header><h1>Title</h1><p>By Ann</p></header><p>Story</p><aside>Pull quote</aside><footer>Tags: x</footer></article></main>';
    expect(main(html)).to.equal('# Title\n\nBy Ann\n\nStory\n\nPull quote\n\nTags: x');
  });

  it('keeps header and footer inside <main> (or role="main") but drops a sidebar <aside> there', () => {
    expect(main('<main><header><h1>Title</h1></header><p>Story</p><aside>Sidebar</aside><footer>Notes</footer></main>')).to.equal('# Title\n\nStory\n\nNotes');
    expect(main('<div role="main"><header><h1>Title</h1></header><p>Story</p></div>')).to.equal('# Title\n\nStory');
  });

  it('drops page furniture named by its role', () => {
    const roles = ['navigation', 'banner', 'contentinfo', 'search', 'menubar', 'dialog', 'alertdialog', 'complementary'];
    const html = roles.map((role) => `<div role="${role}">${role} text</div>`).join('') + '<p>Story</p>';
    expect(main(html)).to.equal('Story');
    expect(main('<article><div role="complementary">Note</div><p>Story</p></article>')).to.equal('Note\n\nStory');
  });

  it('drops cookie banners, adverts, newsletters, popups, breadcrumbs and sidebars named by class, id or aria-label', () => {
    const chrome = [
      '<div class="cookie-banner">We use cookies</div>',
      '<div id="CybotCookiebotDialog">Consent</div>',
      '<section class="gdpr-notice">GDPR</section>',
      '<div aria-label="Cookie preferences">Preferences</div>',
      '<div class="ad">Ad one</div>',
      '<div id="ad-slot-2">Ad two</div>',
      '<div class="top_ads">Ad three</div>',
      '<div class="advertisement">Ad four</div>',
      '<ins class="adsbygoogle">Ad five</ins>',
      '<div class="sponsored-links">Sponsored</div>',
      '<div class="promo-box">Promo</div>',
      '<form class="newsletter-signup">Newsletter</form>',
      '<div class="popup">Popup</div>',
      '<div class="modal fade">Modal</div>',
      '<ul class="breadcrumbs"><li>Home</li></ul>',
      '<div id="left-sidebar">Sidebar</div>',
      '<div id="taboola-below-article">Around the web</div>',
    ];
    expect(main(`${chrome.join('')}<p>The story itself, long enough to be most of the page text.</p>`)).to.equal(
      'The story itself, long enough to be most of the page text.',
    );
  });

  it('reads "ad" only as a word: header, shadow, download, loading and add-to-cart stay', () => {
    const html = ['header', 'shadow', 'download', 'loading', 'add-to-cart', 'badge', 'road-map'].map((c) => `<div class="${c}">${c} text</div>`).join('');
    expect(main(html)).to.equal('header text\n\nshadow text\n\ndownload text\n\nloading text\n\nadd-to-cart text\n\nbadge text\n\nroad-map text');
  });

  it('keeps a "banner" class (hero banners carry the title) and inline elements whatever their class', () => {
    expect(main('<div class="hero-banner"><h1>Title</h1></div><p>Read <a class="promo-link" href="/x">this</a> now.</p>')).to.equal(
      '# Title\n\nRead [this](https://example.com/x) now.',
    );
  });

  it('keeps a container matched by its name when it encloses the main content or most of the text', () => {
    expect(main('<div class="has-sidebar"><div class="sidebar">Side</div><article><p>Story</p></article><article><p>More</p></article></div>')).to.equal(
      'Story\n\nMore',
    );
    expect(main('<div class="cookie-recipe"><h1>Cookies</h1><p>Butter, sugar, flour and a long method.</p></div><div class="modal">Sign up</div>')).to.equal(
      '# Cookies\n\nButter, sugar, flour and a long method.',
    );
  });
});
