import { mount } from 'svelte';
import App from './App.svelte';
import { guardPage } from './lib/pageGuard';
import { mark } from './lib/timeline';
import './app.css';

mark('script');
const target = document.getElementById('app');
if (!target) throw new Error('index.html lost its #app element');

// Only the shipped build: `vite dev` keeps the browser's reload for whoever works on the UI.
if (import.meta.env.PROD) guardPage(window);

export default mount(App, { target });
