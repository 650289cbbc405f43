import { MERCHANT_PERMISSIONS, MERCHANT_ROLES, roleMay, rolesWith } from '../../src/identity/merchant-roles';
import { escapeHtml, renderLinkPage } from '../../src/dashboards/links/page';

describe('merchant roles', () => {
  it('gives owners every permission and viewers reading only', () => {
    for (const permission of MERCHANT_PERMISSIONS) expect([permission, roleMay('owner', permission)]).toEqual([permission, true]);
    expect(MERCHANT_PERMISSIONS.filter((p) => roleMay('viewer', p))).toEqual(['read']);
  });

  it('follows the operator spec: developers the Developers section, reviewers reviews and restrictions, none but owners the team', () => {
    expect(rolesWith('developers')).toEqual(['owner', 'developer']);
    expect(rolesWith('decide_reviews')).toEqual(['owner', 'reviewer']);
    expect(rolesWith('lift_restrictions')).toEqual(['owner', 'reviewer']);
    expect(rolesWith('refunds')).toEqual(['owner']);
    expect(rolesWith('team')).toEqual(['owner']);
    expect(rolesWith('audit_log')).toEqual(['owner']);
    expect(rolesWith('read')).toEqual([...MERCHANT_ROLES]);
  });
});

describe("the link pages' markup", () => {
  it('escapes every value it shows', () => {
    expect(escapeHtml(`<img src=x onerror="alert('1')">&\``)).toBe('&#60;img src=x onerror=&#34;alert(&#39;1&#39;)&#34;&#62;&#38;&#96;');
    const html = renderLinkPage(
      { title: '<b>t</b>', lines: ['<script>x()</script>'], token: 'abc"><script>', submitPath: '/a', totpPath: '/b', done: '</p><script>', signInPath: '/"><script>' },
      'nonce"',
    );
    expect(html).not.toMatch(/<b>|<script>x|"><script>|<\/p><script>|nonce"/);
    expect(html).toContain('href="/&#34;&#62;&#60;script&#62;"');
    expect(html).toContain('&#60;script&#62;x()&#60;/script&#62;');
  });
});
