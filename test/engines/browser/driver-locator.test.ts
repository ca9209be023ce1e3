import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { locateChromedriver } from '../../../src/engines/browser/driver-locator.js';

const major = (versionLine: string) => /(\d+)\.\d+\.\d+\.\d+/.exec(versionLine)?.[1];

describe('locateChromedriver', () => {
  it('takes CHROMEDRIVER_PATH as given', () => {
    expect(locateChromedriver('/opt/driver/chromedriver')).to.equal('/opt/driver/chromedriver');
  });

  it("finds the chromedriver package's copy of Debian's driver, matching Debian's Chromium", () => {
    const path = locateChromedriver(undefined);
    expect(path).to.match(/node_modules\/chromedriver\/lib\/chromedriver\/chromedriver$/);
    const driver = execFileSync(path, ['--version'], { encoding: 'utf8' });
    const debianDriver = execFileSync('/usr/bin/chromedriver', ['--version'], { encoding: 'utf8' });
    const chromium = execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' });
    expect(driver.split(' ')[1]).to.equal(debianDriver.split(' ')[1]);
    expect(major(driver)).to.be.a('string').and.equal(major(chromium));
  });
});
