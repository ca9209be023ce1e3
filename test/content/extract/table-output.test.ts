import { expect } from 'chai';
import { run } from './run-rules.js';

describe('extract: table outputs', () => {
  const TABLE = `<table id="t">
    <caption>Prices</caption>
    <tfoot><tr><td>Total</td><td>3</td></tr></tfoot>
    <thead><tr><th> Name </th><th>Price</th></tr></thead>
    <tbody><tr><td>a</td><td> 1 </td></tr><tr><td>b <table><tr><td>inner</td></tr></table></td><td>2</td></tr></tbody>
    <tr><td>c</td></tr>
  </table>`;

  it('table_array: rows of cell texts, thead first and tfoot last as in table.rows, nested tables not rows', () => {
    expect(run(TABLE, { t: { selector: '#t', output: 'table_array' } })).to.deep.equal({
      t: [['Name', 'Price'], ['a', '1'], ['b inner', '2'], ['c'], ['Total', '3']],
    });
  });

  it('table_json: objects keyed by the thead row, null for missing cells', () => {
    expect(run(TABLE, { t: { selector: '#t', output: 'table_json' } })).to.deep.equal({
      t: [
        { Name: 'a', Price: '1' },
        { Name: 'b inner', Price: '2' },
        { Name: 'c', Price: null },
        { Name: 'Total', Price: '3' },
      ],
    });
  });

  it('table_json: a first row of th cells is the header when there is no thead', () => {
    const html = '<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>';
    expect(run(html, { t: { selector: 'table', output: 'table_json' } })).to.deep.equal({ t: [{ k: 'a', v: '1' }] });
  });

  it('table_json: a table with no header row keys its columns "0", "1", ...', () => {
    const html = '<table><tr><th>a</th><td>1</td></tr><tr><td>b</td><td>2</td></tr></table>';
    expect(run(html, { t: { selector: 'table', output: 'table_json' } })).to.deep.equal({
      t: [
        { 0: 'a', 1: '1' },
        { 0: 'b', 1: '2' },
      ],
    });
  });

  it('table_json: an empty or repeated header, or a cell past the header, is keyed by its column index', () => {
    const html = '<table><thead><tr><th>x</th><th></th><th>x</th><th>__proto__</th></tr></thead><tr><td>1</td><td>2</td><td>3</td><td>4</td><td>5</td></tr></table>';
    const [row] = (run(html, { t: { selector: 'table', output: 'table_json' } }) as { t: Array<Record<string, string>> }).t;
    // (A JavaScript object lists index-like keys first, whatever the order they were made in.)
    expect(Object.keys(row)).to.have.members(['x', '1', '2', '__proto__', '4']);
    expect(Object.hasOwn(row, '__proto__')).to.equal(true);
    expect(row).to.deep.equal(Object.fromEntries([['x', '1'], ['1', '2'], ['2', '3'], ['__proto__', '4'], ['4', '5']]));
  });

  it('cleans cell texts unless told not to', () => {
    const html = '<table><tr><td> a \n b </td></tr></table>';
    expect(run(html, { c: { selector: 'table', output: 'table_array' }, r: { selector: 'table', output: 'table_array', clean: false } })).to.deep.equal({
      c: [['a b']],
      r: [[' a \n b ']],
    });
  });

  it('gives [] for a matched element that is not a table, and a list of tables for a list rule', () => {
    const html = '<div>x</div><table><tr><td>1</td></tr></table><table><tr><td>2</td></tr></table>';
    expect(run(html, { d: { selector: 'div', output: 'table_array' }, all: { selector: 'table', type: 'list', output: 'table_array' } })).to.deep.equal({
      d: [],
      all: [[['1']], [['2']]],
    });
  });
});
