/**
 * werift as the SFU runs it: the one door to werift for everything outside this folder. Importing it
 * applies the SFU's patches first (werift-patches.ts), so no peer is ever created on unpatched werift,
 * and the version is the one package.json pins exactly (the contract suite, werift-contract.spec.ts,
 * fails on any other). Private members and Node internals are reached only by the other files of this
 * folder; ESLint (no-restricted-imports) keeps werift imports out of every other file.
 */
import './werift-patches.js';

export * from 'werift';
