import './zod-jitless.ts';
import './page.css';
import { mountConsole } from './mount.ts';

// The console as a page of its own (`pnpm console`, the static build).
const app = document.getElementById('app');
if (app) mountConsole(app);
