"""Reading: files found, decoded and parsed into trees and manifests, charts rendered,
builds and build files read (the first stage of a run)."""
