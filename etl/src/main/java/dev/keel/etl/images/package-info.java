/**
 * Image-folder sources: one sub-folder per class, PNG/JPEG files decoded to grey-scale bytes of one
 * shape.
 */
package dev.keel.etl.images;
