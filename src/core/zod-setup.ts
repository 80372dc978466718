/**
 * zod, set up once before any schema is made: without its parser generation (`jitless`). zod
 * otherwise writes and compiles a parser function for each object schema on its first use, about
 * 1-10 ms each; a gateway validates most of its objects once or a few times per turn, so the
 * compile was most of the cost of a process's first config read and of a conversation's first
 * turn, and never paid back. Imported first by the command line.
 */
import * as z from 'zod';

z.config({ jitless: true });
