/**
 * What a Keel server lets requests do: the places they may name ({@link
 * dev.keel.service.security.DataRoots}), and who may do what.
 */
package dev.keel.service.security;
