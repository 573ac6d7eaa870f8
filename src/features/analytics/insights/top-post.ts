// top_post: a post whose engagements sit above +2 robust z-scores of its account's median (outliers.ts): worth
// repurposing or boosting while it is still fresh.
import { outliers } from './outliers.ts';

export const topPost = outliers('top_post');
