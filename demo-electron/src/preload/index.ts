// The preload: a single file (bundled), run sandboxed. It exposes the contract's calls by name and
// nothing else: no ipcRenderer, no Node, no secrets.
import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_NAME, CALLS, type DemoApi } from '../shared/contract.ts';

const api: DemoApi = {
  getSetup: () => ipcRenderer.invoke(CALLS.getSetup.channel),
  preparePlay: (request) => ipcRenderer.invoke(CALLS.preparePlay.channel, request),
  setRealService: (settings) => ipcRenderer.invoke(CALLS.setRealService.channel, settings),
};

contextBridge.exposeInMainWorld(BRIDGE_NAME, api);
