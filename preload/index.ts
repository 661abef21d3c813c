// Runs in the sandboxed preload: exposes exactly one object, `window.gatehouse`.
import { contextBridge, ipcRenderer } from 'electron';
import { methods } from '../shared/contract.js';
import { createBridge } from './api.js';

contextBridge.exposeInMainWorld('gatehouse', createBridge(Object.keys(methods), ipcRenderer));
