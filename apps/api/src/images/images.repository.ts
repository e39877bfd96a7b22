import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { ImageKind } from '@radiobroadcaster/contracts';
import type { Repository } from 'typeorm';
import { ImageEntity } from './image.entity.js';
import type { ProcessedImage } from './image-processing.js';

/** All image I/O. */
@Injectable()
export class ImagesRepository {
  constructor(@InjectRepository(ImageEntity) private readonly images: Repository<ImageEntity>) {}

  find(id: string): Promise<ImageEntity | null> {
    return this.images.findOne({ where: { id } });
  }

  async insert(ownerId: string, kind: ImageKind, image: ProcessedImage): Promise<string> {
    const { identifiers } = await this.images.insert({
      ownerId,
      kind,
      contentType: image.contentType,
      width: image.width,
      height: image.height,
      bytes: image.bytes,
    });
    return identifiers[0]!.id as string;
  }

  async delete(id: string): Promise<void> {
    await this.images.delete({ id });
  }
}
