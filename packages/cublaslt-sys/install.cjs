#!/usr/bin/env node
// npm's install step for @baracuda/driver, @baracuda/cudnn-sys, @baracuda/nccl-sys and
// @baracuda/cublaslt-sys (this file is the same in all four; a test keeps it so).
// Never fails an install that can work without it:
// - a checkout of the monorepo (src/ is here): the workspace build makes the addon; nothing to do;
// - the prebuilt platform package loads (or an earlier build from source is here): nothing to do;
// - otherwise, or with BARACUDA_BUILD_FROM_SOURCE=1: build from source with cmake-js when cmake, a
//   C++17 compiler and cmake-js are there; without them print the exact packages to install.
// Only a forced build (BARACUDA_BUILD_FROM_SOURCE=1) that cannot run or fails exits non-zero; in
// every other case the first use raises LibraryNotFoundError with the same advice.
'use strict';
const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const { dirname, join } = require('node:path');

const here = __dirname;
const { name } = require('./package.json');
const addon = {
  '@baracuda/driver': 'baracuda_driver.node',
  '@baracuda/cudnn-sys': 'baracuda_cudnn.node',
  '@baracuda/nccl-sys': 'baracuda_nccl.node',
  '@baracuda/cublaslt-sys': 'baracuda_cublaslt.node',
}[name];
const platformPackage = `@baracuda/native-${process.platform}-${process.arch}`;
const force = process.env.BARACUDA_BUILD_FROM_SOURCE === '1';
const say = (line) => process.stderr.write(`${name}: ${line}\n`);

function loads(path) {
  if (!existsSync(path)) return false;
  try {
    require(path); // loading never opens libcuda or cuDNN: safe without a GPU
    return true;
  } catch (error) {
    say(`${path} does not load here: ${error.message.split('\n')[0]}`);
    return false;
  }
}

function prebuiltLoads() {
  if (loads(join(here, 'build', 'Release', addon))) return true;
  try {
    return loads(join(dirname(require.resolve(`${platformPackage}/package.json`)), addon));
  } catch {
    return false;
  }
}

function runs(command, args) {
  const result = spawnSync(command, args, { stdio: 'ignore' });
  return result.status === 0;
}

function findCmakeJs() {
  for (const base of [here, process.env.INIT_CWD, process.cwd()].filter(Boolean)) {
    try {
      return require.resolve('cmake-js/bin/cmake-js', { paths: [base] });
    } catch {
      // not installed from this base
    }
  }
  return undefined;
}

function missingTools() {
  const missing = [];
  if (!runs('cmake', ['--version'])) missing.push('cmake');
  const cxx = process.env.CXX || 'c++';
  if (!runs(cxx, ['--version'])) missing.push(`a C++17 compiler (${cxx})`);
  return missing;
}

function main() {
  if (existsSync(join(here, 'src'))) return 0;
  if (!addon) return 0;
  if (!force && prebuiltLoads()) return 0;
  const reason = force
    ? 'BARACUDA_BUILD_FROM_SOURCE=1: building the addon from source'
    : `no prebuilt addon loads here (${platformPackage}, glibc 2.28+): building it from source`;
  say(reason);
  const missing = missingTools();
  const cmakeJs = findCmakeJs();
  if (missing.length > 0 || !cmakeJs) {
    say(`cannot build: missing ${[...missing, ...(cmakeJs ? [] : ['cmake-js'])].join(', ')}.`);
    say(`Install them, then run \`BARACUDA_BUILD_FROM_SOURCE=1 npm rebuild ${name}\`:`);
    say('  Debian/Ubuntu: sudo apt-get install -y cmake g++');
    say('  RHEL/Fedora/Amazon Linux: sudo dnf install -y cmake gcc-c++');
    say('  and in your project: npm install --no-save cmake-js@8');
    return force ? 1 : 0;
  }
  const build = spawnSync(process.execPath, [cmakeJs, 'compile', '--out', 'build'], {
    cwd: here,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (build.status === 0 && loads(join(here, 'build', 'Release', addon))) {
    say(`built ${join(here, 'build', 'Release', addon)}`);
    return 0;
  }
  say(`the build from source failed (status ${build.status}); see the output above.`);
  return force ? 1 : 0;
}

process.exitCode = main();
