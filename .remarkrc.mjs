// remark (run by `npm run lint`): checks every local link and #anchor in the markdown files,
// offline. Links to web addresses are not fetched (the checker has no network, nor does CI).
import remarkGfm from 'remark-gfm';
import remarkValidateLinks from 'remark-validate-links';

export default {
  plugins: [remarkGfm, [remarkValidateLinks, { repository: false }]],
};
